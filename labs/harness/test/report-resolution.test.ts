/**
 * A run whose headline interval contains 1 says what it is missing under the headline (terminal and report.md):
 * about how many more samples per case, from its own spread, and how to get them; a resolved one says nothing more.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseResults, type Results } from '@parallel-course/core';
import { formatTerminalSummary } from '../src/report/terminal.ts';
import { renderMarkdownReport } from '../src/report/markdown.ts';
import { resolutionSentence } from '../src/report/resolution.ts';

function fixture(): Results {
  return parseResults(JSON.parse(readFileSync(new URL('./fixtures/results-event-loop.json', import.meta.url), 'utf8')));
}

/** The fixture with its headline moved to 1.13x [0.974, 1.76] (the event-loop quick run under load, issue 44). */
function unresolved(quick: boolean): Results {
  const results = fixture();
  results.quick = quick;
  results.headline = { ...results.headline!, speedup: 1.13, ci95: [0.974, 1.76] };
  return results;
}

test('an unresolved headline says how many more samples per case it needs, and how to get them', () => {
  const results = unresolved(true);
  const n = results.cases.find((c) => c.variant === results.headline!.variant && JSON.stringify(c.params) === JSON.stringify(results.headline!.params))!.samplesMs.length;
  // n' = n x (0.295829 / 0.122218)^2 = 5.8588 n (resolve.test.ts).
  const more = Math.ceil(n * 5.85878) - n;
  const sentence = resolutionSentence(results) ?? '';
  assert.equal(
    sentence,
    `Not resolved: the interval contains 1, so this run cannot tell pool (workers=2) from inline. From this run's spread it needs about ${more} more samples per case (it has ${n}). A run without --quick takes more samples of each case.`,
  );
  assert.match(formatTerminalSummary(results).replace(/\s+/g, ' '), /Headline: pool \(workers=2\): 1\.13x \[0\.974, 1\.76\] vs inline .* Not resolved: the interval contains 1/);
  assert.match(renderMarkdownReport(results, {}), /Not resolved: the interval contains 1/);
  assert.match(resolutionSentence(unresolved(false)) ?? '', /More rounds, or a quieter machine, narrow the interval\.$/);
  // A busy machine is named first, as the run's notes found it.
  const busy = unresolved(true);
  busy.notes = [...busy.notes, 'Competing load: other processes on this machine used more than 0.5 CPU while 4 of 4 measured rounds were timed'];
  assert.match(resolutionSentence(busy) ?? '', /Other processes used the CPUs while it measured \(see the notes\): rerun when the machine is quieter, or without --quick for more samples\.$/);
});

test('a resolved headline adds nothing; a ratio of 1 says more samples would not help', () => {
  const results = fixture();
  assert.ok(results.headline!.ci95[0] > 1);
  assert.equal(resolutionSentence(results), null);
  assert.doesNotMatch(formatTerminalSummary(results), /Not resolved/);
  const flat = unresolved(true);
  flat.headline = { ...flat.headline!, speedup: 1, ci95: [0.9, 1.1] };
  assert.match(resolutionSentence(flat) ?? '', /the two measured the same here, and more samples would not show a difference that is not there\.$/);
});
