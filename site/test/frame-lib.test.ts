/** The pure parts of the course frame, on hand-computed values: schedule, outcome tags, question rules, build log. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCompleted, findWarnings } from '../scripts/build-log.ts';
import { questionProblems, type KnowledgeQuestion } from '../src/lib/knowledge-check.ts';
import { outcomeTagProblems, uncoveredOutcomes, type LearningOutcome } from '../src/lib/learning-outcomes.ts';
import { buildSchedule, formatClock } from '../src/lib/schedule.ts';
import { hasChallengeWithSolution, knowledgeCheckQuestions, listLength, minutesField } from './support/episode-files.ts';

describe('buildSchedule', () => {
  it('adds teaching and exercises per episode and runs the clock from 0', () => {
    // Reference: 5+10 = 15 (ends 0:15), 10+5 = 15 (ends 0:30), 15+15 = 30 (ends 1:00); totals 30, 30, 60.
    const schedule = buildSchedule([
      { id: 'a', title: 'A', teaching: 5, exercises: 10 },
      { id: 'b', title: 'B', teaching: 10, exercises: 5 },
      { id: 'c', title: 'C', teaching: 15, exercises: 15 },
    ]);
    assert.deepEqual(
      schedule.rows.map((row) => [row.id, row.total, row.startsAt, row.endsAt]),
      [
        ['a', 15, 0, 15],
        ['b', 15, 15, 30],
        ['c', 30, 30, 60],
      ],
    );
    assert.deepEqual([schedule.teaching, schedule.exercises, schedule.total], [30, 30, 60]);
  });

  it('is empty for no episodes and names an episode with missing or fractional minutes', () => {
    assert.deepEqual(buildSchedule([]), { rows: [], teaching: 0, exercises: 0, total: 0, deepDives: 0, homework: 0 });
    assert.throws(
      () => buildSchedule([{ id: '05-event-loop', title: 'E', teaching: Number.NaN, exercises: 5 }]),
      { message: 'episode "05-event-loop": teaching must be a whole number of minutes >= 0, got NaN' },
    );
    assert.throws(() => buildSchedule([{ id: 'x', title: 'X', teaching: 5, exercises: 2.5 }]), /exercises must be a whole/);
  });

  it('keeps deep dives and homework out of the core clock, and adds them up apart', () => {
    // Reference: core 10+5 = 15 and 5+5 = 10 (clock 0:15, 0:25); deep dives 8 + 4 = 12 and 6; homework 120.
    const schedule = buildSchedule([
      { id: 'a', title: 'A', teaching: 10, exercises: 5, deepDives: [{ title: 'Roofline', minutes: 8 }, { title: 'Try it', minutes: 4 }] },
      { id: 'b', title: 'B', teaching: 5, exercises: 5, deepDives: [{ title: 'Perf', minutes: 6 }], homework: 120 },
    ]);
    assert.deepEqual(
      schedule.rows.map((row) => [row.id, row.total, row.endsAt, row.deepDiveMinutes, row.homework]),
      [
        ['a', 15, 15, 12, undefined],
        ['b', 10, 25, 6, 120],
      ],
    );
    assert.deepEqual([schedule.total, schedule.deepDives, schedule.homework], [25, 18, 120]);
    assert.throws(
      () => buildSchedule([{ id: 'c', title: 'C', teaching: 5, exercises: 5, deepDives: [{ title: 'X', minutes: 0 }] }]),
      { message: 'episode "c": deep dive "X" must be a whole number of minutes >= 1, got 0' },
    );
  });

  it('formats minutes as h:mm', () => {
    assert.deepEqual([0, 5, 60, 75, 255].map(formatClock), ['0:00', '0:05', '1:00', '1:15', '4:15']);
    assert.throws(() => formatClock(-1), /minutes must be a whole number >= 0, got -1/);
  });
});

describe('learning outcome tags', () => {
  const outcomes: LearningOutcome[] = [
    { id: 'LO1', short: 'one', text: 'Measure one.' },
    { id: 'LO2', short: 'two', text: 'Choose two.' },
  ];

  it('accepts known ids and names unknown, repeated and missing ones with the fix', () => {
    assert.deepEqual(outcomeTagProblems(['LO1', 'LO2'], outcomes), []);
    assert.deepEqual(outcomeTagProblems(['LO3', 'LO1', 'LO1'], outcomes), [
      'outcome "LO3" is not a learning outcome id; use one of LO1, LO2',
      'outcome LO1 is listed twice',
    ]);
    assert.deepEqual(outcomeTagProblems(undefined, outcomes), [
      "needs outcomes: ['LO1', ...] naming the learning outcomes it checks (one or more of LO1, LO2)",
    ]);
    assert.equal(outcomeTagProblems([], outcomes).length, 1);
  });

  it('lists the outcomes no question checks', () => {
    assert.deepEqual(uncoveredOutcomes([{ outcomes: ['LO2'] }, {}], outcomes), ['LO1']);
    assert.deepEqual(uncoveredOutcomes([{ outcomes: ['LO2', 'LO1'] }], outcomes), []);
  });
});

describe('questionProblems', () => {
  const good: KnowledgeQuestion = {
    prompt: 'Why?',
    outcomes: ['LO1'],
    options: [
      { text: 'Because', correct: true, feedback: 'Right.' },
      { text: 'No', correct: false, feedback: 'The misconception.' },
    ],
  };

  it('accepts a well-formed question, and one without tags unless tags are required', () => {
    assert.deepEqual(questionProblems(good, 0, { requireOutcomes: true }), []);
    const { outcomes: _dropped, ...untagged } = good;
    assert.deepEqual(questionProblems(untagged, 0), []);
    assert.match(questionProblems(untagged, 2, { requireOutcomes: true })[0] ?? '', /^question 3 \("Why\?"\) needs outcomes/);
  });

  it('names two correct options and an option without feedback', () => {
    const broken: KnowledgeQuestion = {
      prompt: 'Which?',
      options: [
        { text: 'A', correct: true, feedback: 'Yes.' },
        { text: 'B', correct: true, feedback: '' },
      ],
    };
    assert.deepEqual(questionProblems(broken, 0), [
      'question 1 ("Which?") needs exactly one option with correct: true',
      'question 1 ("Which?"), option 2 needs both text and feedback',
    ]);
  });
});

describe('reading the build log', () => {
  // Lines as Astro 7.3 printed them on this machine (the first one ran into a progress line).
  const log = [
    '15:34:35 [build] Building static entrypoints...',
    '15:34:35   ├─ /404.html15:34:35 [WARN] [content] Entry docs → 404 was not found.',
    '\u001b[2m15:34:36\u001b[22m \u001b[33m[WARN] [@astrojs/sitemap]\u001b[39m The Sitemap integration requires the `site` astro.config option. Skipping.',
    '15:34:36 [build] 12 page(s) built in 10.61s',
    '15:34:36 [build] Complete!',
  ].join('\n');

  it('finds warnings anywhere in a line, with colour codes removed', () => {
    assert.deepEqual(findWarnings(log), [
      '[WARN] [content] Entry docs → 404 was not found.',
      '[WARN] [@astrojs/sitemap] The Sitemap integration requires the `site` astro.config option. Skipping.',
    ]);
    assert.deepEqual(findWarnings('15:34:36 [build] Complete!\n'), []);
  });

  it('tells a finished build from output it cannot read', () => {
    assert.equal(buildCompleted(log), true);
    assert.equal(buildCompleted('15:34:35 [build] Building static entrypoints...'), false);
  });
});

describe('episode file helpers', () => {
  const frontmatter = 'title: T\nteaching: 20\nexercises: 7.5\nquestions:\n  - One?\n  - Two?\nobjectives: [Measure it, Choose it]\nkeypoints: []\nlab: x';

  it('reads whole minutes and list lengths from frontmatter', () => {
    assert.equal(minutesField(frontmatter, 'teaching'), 20);
    assert.equal(minutesField(frontmatter, 'exercises'), undefined, '7.5 is not whole minutes');
    assert.deepEqual(
      ['questions', 'objectives', 'keypoints', 'missing'].map((field) => listLength(frontmatter, field)),
      [2, 2, 0, 0],
    );
  });

  it('finds a challenge with its solution inside or after it, and not a solution before any challenge', () => {
    assert.equal(hasChallengeWithSolution('<Challenge title="x">do it<Solution>done</Solution></Challenge>'), true);
    assert.equal(hasChallengeWithSolution('<Challenge title="x">do it</Challenge>\n\n<Solution>done</Solution>'), true);
    assert.equal(hasChallengeWithSolution('<Solution>done</Solution><Challenge title="x">do it</Challenge>'), false);
    assert.equal(hasChallengeWithSolution('import Challenge from "./Challenge.astro";\n<Challenges />'), false);
  });

  it('evaluates the exported question arrays of an MDX page', () => {
    const source = 'import X from "x";\n\nexport const first = [\n  { prompt: "P", outcomes: ["LO1"], options: [] },\n];\n\nexport const second = [\n];\n';
    const arrays = knowledgeCheckQuestions(source);
    assert.deepEqual([...arrays.keys()], ['first', 'second']);
    assert.equal(arrays.get('first')?.[0]?.prompt, 'P');
    assert.equal(arrays.get('second')?.length, 0);
  });
});
