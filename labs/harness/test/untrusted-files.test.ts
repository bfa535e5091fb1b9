/**
 * Issue 14, untrusted files: no results.json, notes.md or prediction.json can hang, kill or fool `npm run class`,
 * `npm run report -- validate`, the report or --compare. A FIFO, a symbolic link to /dev/zero and a 600 MB (sparse)
 * file are refused unread with their reason while the rest of a folder is processed; control characters never reach
 * the terminal; a "Reproduce" block keeps an edited command on one quoted shell line.
 * Every command that could hang on the old code runs as a child process with a timeout, so this file cannot hang.
 */
import { recompute, type Results, terminalText } from '@parallel-course/core';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compareRuns, formatComparison } from '../src/analyse/compare.ts';
import { UnsafeFileError } from '../src/errors.ts';
import { renderHtmlReport } from '../src/report/html.ts';
import { renderMarkdownReport } from '../src/report/markdown.ts';
import { MAX_RESULTS_BYTES, readResultsText, readTextFileSafely, recordCommandLine, shellCommandLine, shellQuote, shellWords } from '../src/write/safe-read.ts';
import { buildLearnerReport, reproduceCommands } from '../src/tools/learner-report.ts';
import { parseNotes } from '../src/write/notes.ts';
import { renderHtml, renderMarkdown } from '../src/tools/render-report.ts';
import { reportDocument } from '../src/tools/report-document.ts';
import { genuineRun } from './support/genuine-run.ts';

const REPORT_CLI = fileURLToPath(new URL('../src/tools/report-cli.ts', import.meta.url));
const CLASS_CLI = fileURLToPath(new URL('../src/tools/class-cli.ts', import.meta.url));
const RESULTS_READER = fileURLToPath(new URL('../src/write/results-reader.ts', import.meta.url));
/** Far longer than any of these commands takes (under a second or two), far shorter than a hang. */
const CHILD_TIMEOUT_MS = 20_000;
/** "Within a few seconds": the refusals need no reading, so a command ends as fast as for good files. */
const FEW_SECONDS_MS = 10_000;
const FIX = 'give the results.json that "npm run lab" wrote into results/<lab>/<time>/ (a plain file)';
const ESC = '\u001b';

let genuine: Results;
let genuineRoot: string | undefined;

before(async () => {
  const run = await genuineRun();
  genuineRoot = run.root;
  genuine = run.results;
});
after(() => {
  if (genuineRoot) rmSync(genuineRoot, { recursive: true, force: true });
});

/** A fresh folder in the OS temp folder, removed when the test ends. */
function tempDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const makeFifo = (file: string) => execFileSync('mkfifo', [file]);
const makeZeroLink = (file: string) => symlinkSync('/dev/zero', file);
/** 600 MB that use no disk: a sparse file (truncate only sets the size). */
const makeHuge = (file: string) => {
  writeFileSync(file, '');
  truncateSync(file, 600 * 1024 * 1024);
};

interface ChildRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command line of the harness on this Node; killed after CHILD_TIMEOUT_MS, so a hang fails the test. */
function runNode(args: string[], cwd?: string): ChildRun {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL', ...(cwd ? { cwd } : {}) });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - start };
}

/** A class folder with one genuine submission (alice.json) and one untrusted file made by `make`. */
function classFolderWith(t: TestContext, name: string, make: (file: string) => void): { dir: string; out: string; file: string } {
  const dir = tempDir(t, 'harness-untrusted-class-');
  writeFileSync(path.join(dir, 'alice.json'), JSON.stringify(genuine));
  const file = path.join(dir, name);
  make(file);
  return { dir, out: path.join(dir, 'out'), file };
}

function runClass(dir: string, out: string): ChildRun {
  const run = runNode([CLASS_CLI, dir, '--out', out]);
  assert.equal(run.signal, null, `npm run class was killed after ${Math.round(run.ms)} ms (it hung):\n${run.stdout}\n${run.stderr}`);
  assert.ok(run.ms < FEW_SECONDS_MS, `npm run class took ${Math.round(run.ms)} ms`);
  return run;
}

test('class: a FIFO named x.json is refused and listed, the other files are processed, all in seconds', (t) => {
  const { dir, out, file } = classFolderWith(t, 'x.json', makeFifo);
  const run = runClass(dir, out);
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split('\n');
  assert.equal(lines[0], '1 valid, 0 invalid submissions, 1 file refused unread');
  assert.equal(lines[1], `  refused: x: ${file} is a named pipe (FIFO), not a regular file, so it was not read: ${FIX}`);
  assert.match(lines[2] ?? '', /^Class page: .*class\.html$/);
  const page = readFileSync(lines[2]!.slice('Class page: '.length), 'utf8');
  assert.ok(page.includes('<h3>x</h3>'), 'the page lists the refused file');
  assert.ok(page.includes('<td>alice</td>'), 'the page still has the genuine submission');
});

test('class: a symbolic link to /dev/zero named y.json is refused and listed', (t) => {
  const { dir, out, file } = classFolderWith(t, 'y.json', makeZeroLink);
  const run = runClass(dir, out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^1 valid, 0 invalid submissions, 1 file refused unread\n/);
  assert.ok(
    run.stdout.includes(`  refused: y: ${file} is a symbolic link to a character device (such as /dev/zero), not a regular file, so it was not read: ${FIX}\n`),
    run.stdout,
  );
});

test('class: a 600 MB file is refused by its size, before it is read', (t) => {
  const { dir, out, file } = classFolderWith(t, 'big.json', makeHuge);
  const run = runClass(dir, out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^1 valid, 0 invalid submissions, 1 file refused unread\n/);
  assert.ok(run.stdout.includes(`  refused: big: ${file} is 600 MiB, more than the 64 MiB a results file may be, so it was not read: ${FIX}\n`), run.stdout);
  // In this process: refused without reading, so memory stays where it was (reading it would take 600 MB).
  const before = process.memoryUsage().rss;
  assert.throws(() => readResultsText(file), (e: unknown) => e instanceof UnsafeFileError && e.code === 'FILE_TOO_LARGE');
  assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'the refused file was read into memory');
});

test('validate: a FIFO, a link to /dev/zero and a 600 MB file each exit 2 with the reason, in seconds', (t) => {
  const dir = tempDir(t, 'harness-untrusted-validate-');
  const cases = [
    { name: 'x.json', make: makeFifo, reason: 'is a named pipe (FIFO), not a regular file, so it was not read' },
    { name: 'y.json', make: makeZeroLink, reason: 'is a symbolic link to a character device (such as /dev/zero), not a regular file, so it was not read' },
    { name: 'big.json', make: makeHuge, reason: 'is 600 MiB, more than the 64 MiB a results file may be, so it was not read' },
  ];
  for (const c of cases) {
    const file = path.join(dir, c.name);
    c.make(file);
    const run = runNode([REPORT_CLI, 'validate', file]);
    assert.equal(run.signal, null, `validate ${c.name} was killed after ${Math.round(run.ms)} ms (it hung)`);
    assert.ok(run.ms < FEW_SECONDS_MS, `validate ${c.name} took ${Math.round(run.ms)} ms`);
    assert.equal(run.status, 2, `${c.name}: ${run.stdout}${run.stderr}`);
    assert.equal(run.stdout, `REFUSED  ${file}: ${file} ${c.reason}: ${FIX}\n`);
  }
  // A refused file does not stop the others: the genuine one is still checked, and the exit code is still 2.
  const good = path.join(dir, 'good.json');
  writeFileSync(good, JSON.stringify(genuine));
  const both = runNode([REPORT_CLI, 'validate', path.join(dir, 'x.json'), good]);
  assert.equal(both.status, 2);
  assert.match(both.stdout, /^REFUSED {2}.*x\.json: .*\nvalid {4}.*good\.json: schema, correctness and every recomputed number agree\n$/);
});

test('readResults (report, --compare) and listRuns (status) refuse the same files without blocking', (t) => {
  const dir = tempDir(t, 'harness-untrusted-reader-');
  const makers = { fifo: makeFifo, zero: makeZeroLink, huge: makeHuge };
  for (const [name, make] of Object.entries(makers)) {
    mkdirSync(path.join(dir, 'lab', name), { recursive: true });
    make(path.join(dir, 'lab', name, 'results.json'));
  }
  mkdirSync(path.join(dir, 'lab', 'good'));
  writeFileSync(path.join(dir, 'lab', 'good', 'results.json'), JSON.stringify(genuine));
  // In a child, so that a blocking read (the old code) is killed instead of hanging the test.
  const script = `
    import { listRuns, readResults } from ${JSON.stringify(RESULTS_READER)};
    const out = {};
    for (const name of ['fifo', 'zero', 'huge']) {
      try { readResults(${JSON.stringify(path.join(dir, 'lab'))} + '/' + name); out[name] = 'read'; }
      catch (e) { out[name] = e.name + ' ' + e.code; }
    }
    out.runs = listRuns(${JSON.stringify(dir)}, 'lab').map((r) => [r.runDir.split('/').pop(), r.results === null ? r.problem : 'ok']);
    console.log(JSON.stringify(out));`;
  const run = runNode(['--input-type=module', '-e', script]);
  assert.equal(run.signal, null, `killed after ${Math.round(run.ms)} ms (it hung)`);
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as Record<string, unknown>;
  assert.equal(out['fifo'], 'UnsafeFileError FILE_NOT_REGULAR');
  assert.equal(out['zero'], 'UnsafeFileError FILE_NOT_REGULAR');
  assert.equal(out['huge'], 'UnsafeFileError FILE_TOO_LARGE');
  const runs = out['runs'] as Array<[string, string]>;
  assert.deepEqual(runs.map(([name]) => name), ['fifo', 'good', 'huge', 'zero']);
  assert.equal(runs[1]![1], 'ok');
  assert.match(runs[0]![1], /fifo\/results\.json is a named pipe \(FIFO\), not a regular file, so it was not read: /);
});

test('readTextFileSafely: a folder, a missing file and a file over a small cap, each with its code and message', (t) => {
  const dir = tempDir(t, 'harness-untrusted-unit-');
  const options = { capBytes: 1024, what: 'notes.md', fix: 'make it a plain text file' };
  const refusal = (file: string) => {
    try {
      readTextFileSafely(file, options);
    } catch (error) {
      assert.ok(error instanceof UnsafeFileError);
      return `${error.code} ${error.message}`;
    }
    return 'read';
  };
  mkdirSync(path.join(dir, 'folder'));
  assert.equal(refusal(path.join(dir, 'folder')), `FILE_NOT_REGULAR ${dir}/folder is a folder, not a regular file, so it was not read: make it a plain text file`);
  assert.equal(refusal(path.join(dir, 'missing')), `FILE_NOT_FOUND ${dir}/missing does not exist: make it a plain text file`);
  writeFileSync(path.join(dir, 'long.md'), 'x'.repeat(1025));
  assert.equal(refusal(path.join(dir, 'long.md')), `FILE_TOO_LARGE ${dir}/long.md is 1.0 KiB, more than the 1.0 KiB notes.md may be, so it was not read: make it a plain text file`);
  writeFileSync(path.join(dir, 'ok.md'), 'é'.repeat(512));
  assert.equal(readTextFileSafely(path.join(dir, 'ok.md'), options), 'é'.repeat(512));
  assert.equal(MAX_RESULTS_BYTES, 64 * 1024 * 1024);
});

test('sanitizeForTerminal: control characters and bidi overrides become "?"; multi-line text keeps its lines', () => {
  assert.equal(terminalText(`mine${ESC}[2J\u0007\u009b\r\n\tx\u202e`), 'mine?????x?');
  assert.equal(terminalText(`a${ESC}[2J\r\nb\tc`, { multiline: true }), 'a\nb\tc');
  assert.equal(terminalText('speedup 1.8× [1.7, 1.9] – ok'), 'speedup 1.8× [1.7, 1.9] – ok');
});

/** A genuine run with a failed check whose variant and reason carry escape sequences and a forged line. */
function hostileResults(): Results {
  const hostile = structuredClone(genuine);
  hostile.correctness[1] = {
    ...hostile.correctness[1]!,
    variant: `mine${ESC}[2J`,
    passed: false,
    reason: `${ESC}]0;pwned\u0007wrong\nvalid    everything.json: schema, correctness and every recomputed number agree`,
  };
  return hostile;
}

test('control characters in a results file do not reach the terminal: validate, class and report', (t) => {
  const dir = tempDir(t, 'harness-untrusted-control-');
  const file = path.join(dir, 'hostile.json');
  writeFileSync(file, JSON.stringify(hostileResults()));

  const validate = runNode([REPORT_CLI, 'validate', file]);
  assert.equal(validate.status, 1);
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(validate.stdout + validate.stderr), JSON.stringify(validate.stdout));
  assert.match(validate.stdout, /^ {2}- correctness: mine did not pass its check \(wrong\?valid {4}everything\.json: .*\)$/m);
  assert.doesNotMatch(validate.stdout, /^valid/m, 'a newline in the file forged a line of output');

  mkdirSync(path.join(dir, 'class'));
  writeFileSync(path.join(dir, 'class', `eve${ESC}[2J.json`), JSON.stringify(hostileResults()));
  const cls = runNode([CLASS_CLI, path.join(dir, 'class'), '--out', path.join(dir, 'out')]);
  assert.equal(cls.status, 0, cls.stderr);
  assert.ok(!cls.stdout.includes(ESC) && !cls.stdout.includes('\u0007'), JSON.stringify(cls.stdout));
  assert.match(cls.stdout, /^ {2}invalid: eve: correctness: mine did not pass its check/m);

  // The learner's report refuses the run and says why, on stderr, sanitised too.
  const runDir = path.join(dir, 'run');
  mkdirSync(runDir);
  writeFileSync(path.join(runDir, 'results.json'), JSON.stringify(hostileResults()));
  const report = runNode([REPORT_CLI, runDir, '--out', path.join(dir, 'reports')]);
  assert.equal(report.status, 1, report.stderr);
  assert.match(report.stderr, /^ {2}- correctness: mine did not pass its check/m);
  assert.ok(!report.stderr.includes(ESC) && !report.stderr.includes('\u0007'), JSON.stringify(report.stderr));
});

test('--compare: text from either file is sanitised in the comparison table and caveats', () => {
  const earlier = structuredClone(genuine);
  earlier.environment.hostname = `evil${ESC}[2J`;
  // Hostile variant names everywhere the file names them, and its numbers recomputed, as the harness would have
  // written them: compareRuns refuses a file whose numbers do not recompute.
  const hostile = structuredClone(genuine);
  const rename = (v: string) => `${v}${ESC}[31m`;
  for (const c of hostile.cases) c.variant = rename(c.variant);
  for (const e of hostile.correctness) e.variant = rename(e.variant);
  for (const s of hostile.speedups) Object.assign(s, { variant: rename(s.variant), baseline: rename(s.baseline) });
  if (hostile.headline) Object.assign(hostile.headline, { variant: rename(hostile.headline.variant), baseline: rename(hostile.headline.baseline) });
  const current = { ...hostile, ...recompute(hostile) };
  const text = formatComparison(compareRuns(earlier, current));
  assert.ok(!text.includes(ESC), JSON.stringify(text));
  assert.match(text, /^caveat: the runs were on different machines \(evil, /m);
});

test('shellQuote / shellCommandLine: a genuine command is unchanged; anything else stays one quoted word', () => {
  assert.equal(shellCommandLine('npm run lab -- event-loop --impl solution --quick --seed 42'), 'npm run lab -- event-loop --impl solution --quick --seed 42');
  assert.equal(shellCommandLine('npm run lab -- sums --out results/my-runs'), 'npm run lab -- sums --out results/my-runs');
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote('a;b'), `'a;b'`);
  assert.equal(shellQuote('$(reboot)'), `'$(reboot)'`);
  assert.equal(shellQuote('~'), `'~'`);
  assert.equal(shellQuote(''), `''`);
  assert.equal(shellQuote(`x\ny${ESC}'\\`), `$'x\\ny\\x1b\\'\\\\'`);
  assert.equal(shellCommandLine('npm run lab -- sums; curl evil | sh'), `npm run lab -- 'sums;' curl evil '|' sh`);
});

test('a recorded command keeps a quoted argument one word: --why "2 CPUs" reproduces as one word, not two', () => {
  const recorded = recordCommandLine('npm run lab --', ['event-loop', '--predict', '1.8', '--why', "2 CPUs, it's I/O"]);
  assert.equal(recorded, `npm run lab -- event-loop --predict 1.8 --why '2 CPUs, it'\\''s I/O'`);
  assert.equal(shellCommandLine(recorded), recorded);
  assert.deepEqual(shellWords(recorded)?.slice(-1), ["2 CPUs, it's I/O"]);
  // Every word shellQuote writes reads back as itself, control characters included.
  const words = ['a b', `x\ny${ESC}'\\`, '', '$(reboot)', 'plain'];
  assert.deepEqual(shellWords(words.map(shellQuote).join(' ')), words);
  // A file recorded before quoting (words joined by spaces) reads as before; an unterminated quote falls back to spaces.
  assert.equal(shellCommandLine("npm run lab -- x --why it's"), `npm run lab -- x --why 'it'\\''s'`);
});

const EVIL_COMMAND = 'npm run lab -- sums --quick\nrm -rf ~';
const QUOTED_COMMAND = `npm run lab -- sums $'--quick\\nrm' -rf '~'`;

test('Reproduce: a command containing "\\nrm -rf ~" stays quoted on one shell line (report.md, report.html, per-run reports)', (t) => {
  const evil: Results = { ...structuredClone(genuine), command: EVIL_COMMAND };
  const seed = genuine.seed;
  evil.environment.git = { commit: 'abc123\ntouch /tmp/pwned', dirty: false };
  assert.deepEqual(reproduceCommands(evil), [`git checkout $'abc123\\ntouch /tmp/pwned'`, 'npm ci', `${QUOTED_COMMAND} --seed ${seed}`]);

  const dir = tempDir(t, 'harness-untrusted-reproduce-');
  const report = buildLearnerReport([{ runDir: dir, results: evil, notes: parseNotes(''), prediction: null }], new Date('2026-12-03T10:00:00Z'));
  const blocks = reportDocument(report);
  const markdown = renderMarkdown(blocks);
  const fenced = /### Reproduce\n\nFrom a clone of the course repository:\n\n```sh\n([\s\S]*?)\n```/.exec(markdown);
  assert.ok(fenced, 'the Markdown report has a Reproduce block');
  assert.deepEqual(fenced[1]!.split('\n'), [`git checkout $'abc123\\ntouch /tmp/pwned'`, 'npm ci', `${QUOTED_COMMAND} --seed ${seed}`]);
  const html = renderHtml(blocks, new Map());
  assert.ok(html.includes(`<pre class="code"><code>git checkout $&#39;abc123\\ntouch /tmp/pwned&#39;\nnpm ci\nnpm run lab -- sums $&#39;--quick\\nrm&#39; -rf &#39;~&#39; --seed ${seed}</code></pre>`));

  // The per-run reports' "Command" section quotes the same way.
  assert.ok(renderMarkdownReport(evil, {}).includes(`\`\`\`sh\n${QUOTED_COMMAND}\n\`\`\``));
  assert.ok(renderHtmlReport(evil).includes(`<pre><code>npm run lab -- sums $&#39;--quick\\nrm&#39; -rf &#39;~&#39;</code></pre>`));
  for (const text of [markdown, renderMarkdownReport(evil, {})]) assert.doesNotMatch(text, /^rm -rf/m);
});
