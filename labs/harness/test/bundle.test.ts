/** --all: every lab in turn into one bundle folder with an index page; one lab's failure does not stop the rest. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleExitCode, runBundle } from '../src/cli/bundle.ts';
import { LabLoadError } from '../src/errors.ts';
import { parseCommand } from '../src/cli.ts';

const rootDir = fileURLToPath(new URL('./fixtures/root/', import.meta.url));
const tiny = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };

test('--all runs each lab into the bundle, keeps going after a failure, and writes an index', async (t) => {
  const outRoot = mkdtempSync(path.join(os.tmpdir(), 'harness-bundle-'));
  t.after(() => rmSync(outRoot, { recursive: true, force: true }));
  const { runLab } = await import('../src/run/run-lab.ts');
  const lines: string[] = [];
  const { dir, entries } = await runBundle({
    labs: ['toy', 'missing', 'toy'],
    impl: 'solution',
    quick: true,
    outRoot,
    rootDir,
    silent: true,
    onLab: (line) => lines.push(line),
    // The real runLab on the toy lab (with a tiny sampling plan); 'missing' is not a lab.
    run: (options) => (options.lab === 'missing' ? Promise.reject(new LabLoadError('no lab called missing')) : runLab({ ...options, sampling: tiny })),
  });
  assert.equal(path.dirname(dir), path.join(outRoot, 'all'));
  assert.deepEqual(entries.map((e) => [e.lab, e.exitCode]), [['toy', 1], ['missing', 2], ['toy', 1]]);
  assert.equal(bundleExitCode(entries), 2);
  // Each lab's run is a normal run folder inside the bundle.
  assert.ok(entries[0]!.runDir!.startsWith(path.join(dir, 'toy')) && existsSync(path.join(entries[0]!.runDir!, 'results.json')));
  assert.equal(readdirSync(path.join(dir, 'toy')).length, 2);
  const index = readFileSync(path.join(dir, 'index.html'), 'utf8');
  assert.match(index, /<th scope="row">toy<\/th><td>some cases failed \(exit 1\)<\/td><td>good: [\d.]+x \[/);
  assert.match(index, /<th scope="row">missing<\/th><td>no results \(exit 2\)<\/td><td>no lab called missing<\/td>/);
  assert.match(index, /<a href="toy\/[^"]+\/report\.html">report<\/a>/);
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'bundle.json'), 'utf8')).length, 3);
  assert.match(lines.join('\n'), /^\[2\/3\] missing: exit 2 in \d+ s: no lab called missing$/m);
});

test('--all takes no lab name and no per-run comparison', () => {
  assert.equal(parseCommand(['--all', '--quick', '--cpus', '8']).kind, 'all');
  assert.throws(() => parseCommand(['--all', 'event-loop']), /--all runs every lab/);
  assert.throws(() => parseCommand(['--all', '--compare', 'x']), /--all goes with --quick, --impl, --out, --seed and --cpus only/);
  assert.equal(bundleExitCode([]), 0);
});
