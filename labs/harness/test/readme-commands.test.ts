/** README.md's table of commands is rendered from the reference runs (tools/readme-commands.ts), and lists every script. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT_DIR } from '../src/lab-registry.ts';
import { BEGIN, END, renderCommands, replaceBlock } from '../src/tools/readme-commands.ts';

const readme = readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');

test("README.md's commands block is the one rendered from reference/ now (else: node labs/harness/src/tools/readme-commands.ts --write)", async () => {
  const block = await renderCommands();
  const current = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
  // A planned time follows the rungs this machine built (native-kernel plans its BLAS and -march rungs only where they
  // load), so it moves by a second or two between machines; the measured times and every other cell must match.
  const withoutPlannedSeconds = (text: string) => text.replace(/planned: [^|]*\|/g, (cell) => cell.replace(/\d+ (min|s)/g, 'N $1'));
  assert.equal(withoutPlannedSeconds(current), withoutPlannedSeconds(block), 'the README block is stale: run node labs/harness/src/tools/readme-commands.ts --write');
  // The times come from the runs: each lab's full-run wall time appears, as the block's formatter writes it.
  assert.match(block, /measured: event-loop \d+ (min|s)/);
  assert.match(block, /`npm run lab -- --all --quick` \| every lab, quick \| planned: \d/);
});

test('the README names every npm script of the course', () => {
  const scripts = Object.keys((JSON.parse(readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  const internal = new Set(['typecheck', 'test:labs']); // run by npm test
  for (const name of scripts) {
    if (internal.has(name)) continue;
    const spelled = name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`;
    assert.ok(readme.includes(`\`${spelled}`), `README.md does not list \`${spelled}\``);
  }
});

test('replaceBlock swaps the text between the markers and refuses a README without them', () => {
  const text = `before\n${BEGIN}\nold\n${END}\nafter\n`;
  assert.equal(replaceBlock(text, `${BEGIN}\nnew\n${END}`), `before\n${BEGIN}\nnew\n${END}\nafter\n`);
  assert.throws(() => replaceBlock('no markers', 'x'), /has no commands block/);
});

test('README for a newcomer: the browser path first, then two commands, in about two minutes of reading', () => {
  const top = readme.slice(0, readme.indexOf('## Running a lab'));
  // About 250 words a minute: the part before the lab commands reads in two.
  assert.ok(top.split(/\s+/).filter(Boolean).length <= 500, `${top.split(/\s+/).length} words before "Running a lab"`);
  const browser = top.indexOf('## In your browser');
  assert.ok(browser > 0 && browser < top.indexOf('npm ci'), 'the browser path comes before any command');
  assert.match(top, /in-page lab/);
  assert.match(top, /Results viewer/);
  assert.match(top, /```sh\nnpm ci && npm start {8}#[^\n]*\nnpm run lab -- --status {4}#[^\n]*\n```/, 'the two commands');
  assert.match(top, /ONNXRUNTIME_NODE_INSTALL=skip npm ci/, 'npm 10: the install line');
  assert.match(top, /EBADENGINE/, 'one line on why the engine warnings appear');
});

test("the commands table carries no timing history (dates and earlier runs live in the harness README's Tests)", async () => {
  const block = await renderCommands();
  assert.doesNotMatch(block, /\b20\d\d-\d\d-\d\d\b|the evening before|before that evening/);
  // The first --status is not "seconds": it says what it does and how long.
  assert.match(block, /`npm run lab -- --status` \| [^|]+\| the first: every lab's exercise checked against its expected outputs, about 1-2 min/);
});
