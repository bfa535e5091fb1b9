import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { formatTerminalSummary } from '../src/report/terminal.ts';
import { stdoutSummaryWidth, TERMINAL_WIDTH } from '../src/text-table.ts';
import { parseResults, type Results } from '@parallel-course/core';

const FIXTURE = new URL('./fixtures/results-event-loop.json', import.meta.url);

function loadFixture(): Results {
  return parseResults(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'results-event-loop.json');
}

/** The one line of `text` that contains every one of `parts`; fails when there is not exactly one. */
function lineWith(text: string, ...parts: string[]): string {
  const lines = text.split('\n').filter((l) => parts.every((p) => l.includes(p)));
  assert.equal(lines.length, 1, `expected one line containing ${JSON.stringify(parts)}, found ${lines.length}:\n${text}`);
  return lines[0] ?? '';
}

describe('the event-loop fixture', () => {
  it('is a valid results file and says it is synthetic', () => {
    const results = loadFixture();
    assert.equal(results.lab, 'event-loop');
    assert.ok(results.notes.some((n) => n.includes('SYNTHETIC TEST FIXTURE')));
    // The shape the reporter tests rely on.
    assert.deepEqual(
      results.cases.filter((c) => c.oversubscribed).map((c) => c.params['workers']),
      [3, 4],
    );
    assert.equal(results.environment.availableParallelism, 2);
    assert.ok(results.correctness.some((e) => e.variant === 'broken' && !e.passed));
    assert.ok(!results.cases.some((c) => c.variant === 'broken'));
    assert.ok(!results.speedups.some((s) => s.variant === 'broken'));
  });
});

describe('formatTerminalSummary', () => {
  const results = loadFixture();
  const text = formatTerminalSummary(results);

  it('names the lab, the implementation and the machine', () => {
    lineWith(text, 'event-loop', results.title);
    lineWith(text, 'impl: solution');
    lineWith(text, 'machine: AMD EPYC 7763 64-Core Processor', '2 CPUs available', 'node v24.21.0');
  });

  it('shows the baseline median with its interval and throughput', () => {
    // inline: median 40.9955 ms, ci95 [40.712, 41.51]; 40 requests / 0.0409955 s = 975.7 requests/s.
    lineWith(text, 'inline [baseline]', '41.0 ms [40.7, 41.5]', '976 requests/s', '20');
  });

  it('shows every speedup with its 95% interval, efficiency where present and flags', () => {
    // Values from the fixture's speedups, rounded by hand to three significant digits (the core's one rule).
    lineWith(text, 'chunked', 'inline', '0.931x [0.910, 0.955]');
    // Its cv is 15% (one slow sample), but its robust spread (1.4826 x MAD / median) is 7.5%: not noisy any more.
    assert.doesNotMatch(lineWith(text, 'threadpool', '1.75x [1.67, 1.92]'), /noisy/);
    lineWith(text, 'pool (workers=1)', '0.951x [0.933, 0.977]', '95%');
    const two = lineWith(text, 'pool (workers=2)', '1.77x [1.72, 1.84]', '89%');
    assert.doesNotMatch(two, /oversubscribed/);
    const three = lineWith(text, 'pool (workers=3)', '1.84x [1.72, 1.92]', '61%');
    assert.match(three, /oversubscribed/);
    const four = lineWith(text, 'pool (workers=4)', '1.79x [1.71, 1.88]', '45%');
    assert.match(four, /oversubscribed/);
    lineWith(text, 'oversubscribed: more workers than available CPUs (2 here)');
  });

  it('shows correctness per case, with the failure reason in full', () => {
    lineWith(text, 'pool (workers=4)', 'pass', 'same response bodies');
    lineWith(text, 'broken', 'FAIL', 'same response bodies');
    assert.match(text, /! broken: FAIL: response 7 differs from the reference/);
    assert.match(text, /first\s+mismatch at 7/);
  });

  it('shows each case observations with p50, p99 and max in their unit', () => {
    // inline ping latency: p50 23.73, p99 44.541, max 44.9x ms in the fixture.
    lineWith(text, 'inline', 'ping latency', '23.7 ms', '44.5 ms');
    lineWith(text, 'pool (workers=4)', 'ping latency', '0.494 ms', '4.17 ms', '4.69 ms');
  });

  it('ends with the headline and the harness overhead', () => {
    lineWith(text, 'Headline: pool (workers=2): 1.77x [1.72, 1.84] vs inline');
    // harnessOverheadMs 0.0021 ms = 2.10 µs
    lineWith(text, 'Harness overhead: 2.10 µs per sample');
  });

  it(`keeps every line within ${TERMINAL_WIDTH} columns`, () => {
    const long = text.split('\n').filter((l) => [...l].length > TERMINAL_WIDTH);
    assert.deepEqual(long, []);
  });

  it('stays within the width with very long names, units and reasons', () => {
    const copy = structuredClone(results);
    for (const c of copy.cases) {
      c.variant = `${c.variant}-${'v'.repeat(80)}`;
      c.workPerSample.unit = 'u'.repeat(40);
      c.summary.noisy = true;
      c.summary.cv = 1.5;
      c.oversubscribed = true;
    }
    copy.title = 't'.repeat(200);
    copy.correctness[0]!.comparator = 'c'.repeat(200);
    const out = formatTerminalSummary(parseResults(copy));
    assert.deepEqual(out.split('\n').filter((l) => [...l].length > TERMINAL_WIDTH), []);
    assert.match(out, /…/);
  });

  it('says "not implemented" with the reason for an exercise stub', () => {
    const copy = structuredClone(results);
    copy.correctness.push({
      variant: 'pool',
      params: { workers: 8 },
      passed: false,
      comparator: 'same response bodies, byte for byte',
      reason: 'not implemented: createPoolHandler in exercises/event-loop/handlers.ts',
      notImplemented: true,
      firstMismatch: null,
      maxAbsError: null,
      maxRelError: null,
      inputsChecked: 0,
      failedAt: { stage: 'check', sample: null },
    });
    const out = formatTerminalSummary(parseResults(copy));
    lineWith(out, 'pool (workers=8)', 'not implemented', 'same response bodies');
    assert.match(out, /pool \(workers=8\): not implemented: not implemented: createPoolHandler/);
  });

  it('prints no control characters from a hostile results file', () => {
    const copy = structuredClone(results);
    const evil = 'evil\u001b[2J\u001b]0;pwned\u0007';
    copy.cases[1]!.variant = evil;
    copy.notes.push(`note\u001b[31m red`);
    const out = formatTerminalSummary(parseResults(copy));
    assert.doesNotMatch(out, /[\u0000-\u0008\u000b-\u001f\u007f]/);
    assert.match(out, /evil/);
    assert.ok(!out.includes('pwned') && !out.includes('[2J'), 'the escape sequences are dropped whole');
  });

  it('says so when nothing was measured', () => {
    const copy = structuredClone(results);
    copy.cases = [];
    copy.speedups = [];
    copy.amdahl = [];
    copy.headline = null;
    const out = formatTerminalSummary(parseResults(copy));
    assert.match(out, /Times: no case was measured/);
    assert.match(out, /Headline: none/);
  });

  /** A graded run whose one case straddles the target: its line is longer than a terminal. */
  function graded(): Results {
    const copy = structuredClone(results);
    copy.grade = {
      target: 0.9,
      targetText: 'your code at 0.9 of the solution\'s throughput or better, measured in the same run',
      entries: [{ variant: 'pool', params: { workers: 2 }, ratio: 0.88, ci95: [0.81, 0.95], pairing: 'rounds', passed: true, uncertain: true, reason: null }],
      passed: true,
      oversubscribed: false,
    };
    return parseResults(copy);
  }

  it('wraps a grade line on a terminal instead of cutting it ("rerun to b…" was all a learner saw)', () => {
    const out = formatTerminalSummary(graded());
    assert.doesNotMatch(out, /…/);
    assert.match(out.replace(/\n +/g, ' '), /pool \(workers=2\): 0\.88 of the solution \[0\.81, 0\.95\]: PASS \(uncertain: the interval straddles the target; rerun to be sure\)/);
    assert.deepEqual(out.split('\n').filter((l) => [...l].length > TERMINAL_WIDTH), []);
  });

  it('prints every line whole when stdout is not a terminal (a CI log, a Slurm output file)', () => {
    assert.equal(stdoutSummaryWidth({ isTTY: false }), null);
    assert.equal(stdoutSummaryWidth({}), null, 'a pipe has no isTTY');
    assert.equal(stdoutSummaryWidth({ isTTY: true }), TERMINAL_WIDTH);
    const copy = structuredClone(graded());
    const longName = `pool-${'v'.repeat(80)}`;
    for (const c of copy.cases) if (c.variant === 'chunked') c.variant = longName;
    copy.title = `A title of ${'t'.repeat(150)}`;
    copy.correctness[0]!.comparator = `a comparator of ${'c'.repeat(150)}`;
    const out = formatTerminalSummary(parseResults(copy), { width: null });
    assert.doesNotMatch(out, /…/, 'nothing is cut');
    lineWith(out, `event-loop · ${copy.title}`);
    assert.ok(out.includes(`${longName} `), 'the long case name whole, in the times and speedups tables');
    lineWith(out, copy.correctness[0]!.comparator);
    lineWith(out, 'PASS (uncertain: the interval straddles the target; rerun to be sure)');
    assert.ok(out.split('\n').some((l) => [...l].length > TERMINAL_WIDTH), 'lines longer than a terminal, whole');
  });
});
