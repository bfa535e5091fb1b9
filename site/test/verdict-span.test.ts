/**
 * What <Claim> and <Compare> show for an interval verdict (src/lib/verdict-span.ts, rendered by VerdictSpan.astro):
 * known renderCompare results in, the span's class, attributes, text, "ref" mark and "differs" note out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CompareRender } from '../src/lib/compare.ts';
import type { CourseRun } from '../src/lib/course-runs.ts';
import { verdictSpan } from '../src/lib/verdict-span.ts';

/** Only `source` of the run is read; the rest of a CourseRun does not matter here. */
function render(over: Partial<CompareRender> & { source?: CourseRun['source'] } = {}): CompareRender {
  const { source = 'reference', ...rest } = over;
  return {
    direction: 'more',
    text: 'faster than',
    title: 'a: 1.9 [1.7, 2.09]\nb: 1.2 [1.1, 1.3]',
    run: { source } as CourseRun,
    differs: null,
    fellBack: false,
    ...rest,
  };
}

test('a <Compare> on the run it shows: the verb, its direction, its run and its tooltip; no mark, no note', () => {
  assert.deepEqual(verdictSpan('compare', render()), {
    className: 'compare',
    attributes: { 'data-compare': '', 'data-direction': 'more', 'data-source': 'reference', 'data-fell-back': undefined, title: 'a: 1.9 [1.7, 2.09]\nb: 1.2 [1.1, 1.3]' },
    text: 'faster than',
    refLabel: null,
    differsNote: null,
  });
});

test('a <Compare> whose values fell back to the reference is marked "ref", and a differing run gets its note in parentheses', () => {
  const v = verdictSpan('compare', render({ direction: 'level', text: 'within noise of', source: 'course-runs', fellBack: true, differs: 'Your run differs here: a is level with b.' }));
  assert.equal(v.attributes['data-direction'], 'level');
  assert.equal(v.attributes['data-source'], 'course-runs');
  assert.equal(v.attributes['data-fell-back'], 'true');
  assert.equal(v.text, 'within noise of');
  assert.equal(v.refLabel, '(from the reference run)');
  assert.equal(v.differsNote, '(Your run differs here: a is level with b.)');
});

test("a <Claim> keeps the author's sentence (no text of its own, no tooltip, no run) and says what it was checked against", () => {
  assert.deepEqual(verdictSpan('claim', render({ direction: 'less' })), {
    className: 'claim',
    attributes: { 'data-claim': '', 'data-direction': 'less', 'data-fell-back': undefined },
    text: null,
    refLabel: null,
    differsNote: null,
  });
  const fell = verdictSpan('claim', render({ direction: 'unknown', fellBack: true, differs: 'Your run differs here: no interval.' }));
  assert.equal(fell.attributes['data-fell-back'], 'true');
  assert.equal(fell.refLabel, '(checked against the reference run)');
  assert.equal(fell.differsNote, '(Your run differs here: no interval.)');
});
