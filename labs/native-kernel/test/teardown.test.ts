/**
 * A Worker that goes away while its matmulAsync calls are pending (terminated, or calling process.exit) must not
 * take the process with it: the addon settles or drops those calls without throwing into the dying environment.
 * Nor may a Worker that loaded the addon, used it and ended normally: Node then unloads the addon, and its helper
 * threads must not be left running unmapped code. Before the fixes these died by SIGABRT ("terminate called after
 * throwing an instance of 'Napi::Error'") and SIGSEGV, so each case runs in a child process (teardown-child.ts),
 * several workers per child, for every built solution rung.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RUNGS, rungStatus } from '../src/addon.ts';

const CHILD = fileURLToPath(new URL('./teardown-child.ts', import.meta.url));
/** Workers per child. Matrix size: 768 x 768 keeps each call pending for tens of ms even at -O3 -march=native; -O0 is ~10x slower. */
const ROUNDS = 6;
const SIZE = { O0: 320, O3: 768, march: 768 };

for (const mode of ['terminate', 'exit', 'finish'] as const) {
  for (const rung of RUNGS) {
    // A helper thread crashes only if it is still polling (2 ms) when the addon is unloaded; -O0's slower teardown
    // path misses that window, so a normal end is tried on the optimised rungs.
    if (mode === 'finish' && rung === 'O0') continue;
    const status = rungStatus('solution', rung);
    const skip = status.available ? false : `the addon is not built here (${status.reason})`;
    const how = { terminate: 'is terminated with matmulAsync pending', exit: 'calls process.exit with matmulAsync pending', finish: 'used matmulAsync and ended' }[mode];
    test(`a Worker that ${how} leaves the process running (${rung})`, { skip }, () => {
      if (!status.available) return;
      const run = spawnSync(process.execPath, [CHILD, status.file, mode, String(ROUNDS), String(SIZE[rung])], { encoding: 'utf8', timeout: 120_000 });
      assert.doesNotMatch(run.stderr, /terminate called/, run.stderr);
      assert.equal(run.signal, null, `the child died by ${run.signal}: ${run.stderr}`);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^teardown-child: ${ROUNDS} workers went away \\(${mode}\\)`, 'm'));
      // Two calls per worker: a worker that ends normally has seen both settle.
      if (mode === 'finish') assert.match(run.stdout, new RegExp(`; ${2 * ROUNDS} calls settled first$`, 'm'));
    });
  }
}
