/**
 * `npm run profile`: the printed tables, the errors for unusable input (exit code 2, message pinned), and an
 * end-to-end run: real `node --cpu-prof` (this Node 24) on a script with one hot function, then the CLI on its file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CpuProfile } from '../src/tools/profile-analysis.ts';
import { summarizeProfile } from '../src/tools/profile-analysis.ts';
import { main } from '../src/tools/profile-cli.ts';
import { exitCodeFor } from '../src/errors.ts';
import { formatLocation, formatProfileReport } from '../src/tools/profile-table.ts';
import { tempDir } from './support/temp-dir.ts';

const CLI = fileURLToPath(new URL('../src/tools/profile-cli.ts', import.meta.url));

function runCliIn(cwd: string, args: string[]) {
  // INIT_CWD is what npm sets to the folder the command was typed in; the CLI resolves relative paths from it.
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, cwd, env: { ...process.env, INIT_CWD: cwd } });
}

/** One function at 3 ms (line 5), one at 1 ms, in a profile of two samples (µs). */
const SMALL: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] },
    { id: 2, callFrame: { functionName: '', url: 'file:///work/app/main.js', lineNumber: 0, columnNumber: 0 }, children: [3] },
    { id: 3, callFrame: { functionName: 'crunch', url: 'file:///work/app/main.js', lineNumber: 4, columnNumber: 2 } },
  ],
  startTime: 0,
  endTime: 5000,
  samples: [2, 3],
  timeDeltas: [1000, 1000],
};

test('locations: relative to the folder inside it, absolute outside it, node: modules as they are, - without source', () => {
  assert.equal(formatLocation({ url: 'file:///work/app/main.js', line: 5 }, '/work'), 'app/main.js:5');
  assert.equal(formatLocation({ url: 'file:///elsewhere/x.js', line: 1 }, '/work'), '/elsewhere/x.js:1');
  assert.equal(formatLocation({ url: 'node:internal/modules/run_main', line: 140 }, '/work'), 'node:internal/modules/run_main:140');
  assert.equal(formatLocation({ url: '', line: null }, '/work'), '-');
});

test('the report: header, both tables, ms and % of the sampled time, (anonymous) for unnamed functions', () => {
  // Weights: sample 0 (node 2) = 1000 µs, sample 1 (node 3) = 5000 - 2000 = 3000 µs; sampled 4 ms.
  assert.equal(
    formatProfileReport(summarizeProfile(SMALL), 5, '/work'),
    [
      '4.0 ms sampled in 2 samples (idle 0.0 ms); % of the sampled time',
      '',
      'Top 5 by self time (the function itself was running)',
      '  self ms       %  function                      where',
      '      3.0   75.0%  crunch                        app/main.js:5',
      '      1.0   25.0%  (anonymous)                   app/main.js:1',
      '',
      'Top 5 by total time (the function or its callees)',
      ' total ms       %  function                      where',
      '      4.0  100.0%  (anonymous)                   app/main.js:1',
      '      3.0   75.0%  crunch                        app/main.js:5',
    ].join('\n'),
  );
});

test('bad input exits with code 2 and says what is wrong and how to fix it', async (t) => {
  const dir = tempDir(t, 'harness-profile-');
  writeFileSync(path.join(dir, 'notes.txt'), 'hello');
  writeFileSync(path.join(dir, 'package.json'), '{"name":"x"}');
  writeFileSync(path.join(dir, 'empty.cpuprofile'), JSON.stringify({ ...SMALL, samples: [], timeDeltas: [] }));
  mkdirSync(path.join(dir, 'profiles'));
  writeFileSync(path.join(dir, 'profiles', 'CPU.1.cpuprofile'), JSON.stringify(SMALL));

  const cases: [string[], string][] = [
    [[], 'error: which profile? Give the .cpuprofile file that node --cpu-prof --cpu-prof-dir=<dir> <script> wrote\n'],
    [['missing.cpuprofile'], `error: cannot read missing.cpuprofile: no such file (relative paths start in ${dir}); node --cpu-prof --cpu-prof-dir=<dir> <script> writes CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile into <dir>\n`],
    [['notes.txt'], "error: notes.txt is not JSON (Unexpected token 'h', \"hello\" is not valid JSON); a .cpuprofile is the JSON file that node --cpu-prof --cpu-prof-dir=<dir> <script> writes\n"],
    [['package.json'], 'error: package.json: not a CPU profile (nodes: Invalid input: expected array, received undefined; '],
    [['empty.cpuprofile'], 'error: empty.cpuprofile: the profile has no samples (the program ended before the profiler first sampled it); profile a run that lasts longer, or sample more often with --cpu-prof-interval 100 (microseconds; the default is 1000)\n'],
    [['profiles'], 'error: profiles is a folder; give one .cpuprofile file in it (it holds CPU.1.cpuprofile)\n'],
    [['profiles/CPU.1.cpuprofile', '--top', 'ten'], "error: --top must be a positive integer (rows per table), got 'ten'; e.g. --top 20\n"],
    [['a.cpuprofile', 'b.cpuprofile'], 'error: one profile at a time, got 2: a.cpuprofile, b.cpuprofile\n'],
    [['--frobnicate'], "error: Unknown option '--frobnicate'"],
  ];
  // In this process (a child process per case costs seconds here): main's error, mapped to its exit code by errors.ts.
  const saved = process.env.INIT_CWD;
  process.env.INIT_CWD = dir;
  try {
    for (const [args, expected] of cases) {
      await assert.rejects(main(args), (error: Error) => {
        assert.equal(exitCodeFor(error), 2, `${args.join(' ')}: ${error.message}`);
        const printed = `error: ${error.message}\n`;
        assert.ok(printed.startsWith(expected), `${args.join(' ')}:\n${printed}\nexpected to start with\n${expected}`);
        return true;
      });
    }
  } finally {
    if (saved === undefined) delete process.env.INIT_CWD;
    else process.env.INIT_CWD = saved;
  }
  // And as a learner runs it: exit code 2 and the message on stderr, then a good file with exit code 0.
  const missing = runCliIn(dir, ['missing.cpuprofile']);
  assert.equal(missing.status, 2, missing.stderr);
  assert.equal(missing.stdout, '');
  assert.ok(missing.stderr.startsWith('error: cannot read missing.cpuprofile: no such file'), missing.stderr);
  const ok = runCliIn(dir, ['profiles/CPU.1.cpuprofile', '--top', '1']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^Top 1 by self time .*\n.*\n {6}3\.0 {3}75\.0% {2}crunch {24}\/work\/app\/main\.js:5$/m);
});

test('end to end: node --cpu-prof on a script with one hot function, then the CLI puts it first by self time', (t) => {
  const dir = tempDir(t, 'harness-profile-');
  const script = path.join(dir, 'hot-and-cold.mjs');
  // hotLoop runs about 10^8 cheap steps (a few hundred ms); coldSetup about 10^3. The result is printed so the JIT
  // cannot drop the loop as dead code.
  writeFileSync(
    script,
    [
      'function hotLoop(n) {',
      '  let x = 1;',
      '  for (let i = 0; i < n; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0;',
      '  return x;',
      '}',
      'function coldSetup() {',
      '  return Array.from({ length: 1000 }, (_, i) => i).reduce((a, b) => a + b, 0);',
      '}',
      'console.log(coldSetup(), hotLoop(1e8));',
      '',
    ].join('\n'),
  );
  const profiles = path.join(dir, 'profiles');
  const recorded = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(recorded.status, 0, recorded.stderr);
  const files = readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'));
  assert.equal(files.length, 1, `expected one .cpuprofile in ${profiles}, found ${files.join(', ')}`);

  const result = runCliIn(dir, [path.join('profiles', files[0] as string), '--top', '3']);
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.split('\n');
  const selfHeader = lines.findIndex((l) => l.startsWith('Top 3 by self time'));
  assert.ok(selfHeader >= 0, result.stdout);
  const first = lines[selfHeader + 2] ?? '';
  assert.match(first, /^\s+[\d.]+\s+[\d.]+%\s+hotLoop\s+hot-and-cold\.mjs:1$/, `hotLoop should lead the self-time table:\n${result.stdout}`);
  // It should hold a large part of the run (about 75 % here), not merely win a close race.
  const share = Number(/([\d.]+)%/.exec(first)?.[1]);
  assert.ok(share > 30, `hotLoop has ${share}% of the sampled time:\n${result.stdout}`);
});
