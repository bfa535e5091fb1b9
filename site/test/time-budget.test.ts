/**
 * The time budget (issues 19 and 29): the minutes every episode promises cover what its text asks of a learner, by
 * a realistic rule: reading at 150 words a minute, one minute per results table or widget, each challenge at the
 * minutes it declares (at least thinking time plus its runs) and coding challenges at 1.5 times that, the lab runs
 * from the labs' planned durations (support/lab-durations.ts). The core path plus one break must fit in DAY_MINUTES
 * (225: four hours less 15 minutes for questions, issue 45), and every page that states the rate, the total or the
 * break says what this test computes; deep dives, "in detail" folds and homework carry their own minutes. No build needed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetLines,
  BREAK_MINUTES,
  DAY_MINUTES,
  IN_DETAIL_TITLE,
  budgetProblems,
  CHALLENGE_FLOOR_MINUTES,
  CODING_FACTOR,
  widgetsOf,
  WIDGET_MINUTES,
  challengesOf,
  countWords,
  readableText,
  sectionsOf,
  WORDS_PER_MINUTE,
  type DeclaredMinutes,
} from '../src/lib/time-budget.ts';
import { formatClock } from '../src/lib/schedule.ts';
import { LAB_DURATIONS, labDurations } from './support/lab-durations.ts';
import { deepDivesField, labField, minutesField, readEpisodeFiles, scheduleOfFiles } from './support/episode-files.ts';

/** "About four hours" on the landing page: the core path and one break fit in DAY_MINUTES, and do not fall far short. */
const CORE_PATH_MINUTES = { min: 180, max: DAY_MINUTES };

const files = readEpisodeFiles();
const episodes = files.filter((file) => !file.isPage);

function declaredOf(frontmatter: string): DeclaredMinutes {
  return {
    teaching: minutesField(frontmatter, 'teaching') ?? 0,
    exercises: minutesField(frontmatter, 'exercises') ?? 0,
    deepDives: deepDivesField(frontmatter),
    homework: minutesField(frontmatter, 'homework'),
    lab: labField(frontmatter),
  };
}

/** The labs' run times: the harness's planner where it answers, stated constants otherwise (support/lab-durations.ts). */
const planned = await labDurations();

describe('the time budget of every episode', () => {
  it('knows how long each lab runs', (t) => {
    for (const [lab, duration] of Object.entries(planned.durations)) {
      t.diagnostic(`${lab}: full ${duration.full} s, quick ${duration.quick} s (${planned.sources[lab]})`);
      assert.ok(duration.full > 0 && duration.quick > 0);
    }
  });

  for (const file of episodes) {
    it(`${file.name}: its minutes cover its reading, its challenges and its lab runs`, (t) => {
      const declared = declaredOf(file.frontmatter);
      for (const line of budgetLines(file.source, declared, planned.durations)) {
        t.diagnostic(`${line.item}: ${line.declared} min promised, at least ${line.floor} (${line.derivation})`);
      }
      assert.deepEqual(budgetProblems(file.name, file.source, declared, planned.durations), []);
    });
  }
});

describe('the course', () => {
  const schedule = scheduleOfFiles(episodes);

  const day = schedule.total + BREAK_MINUTES;

  it(`fits its core path and one break into about four hours (${CORE_PATH_MINUTES.min}-${CORE_PATH_MINUTES.max} minutes)`, (t) => {
    const table = schedule.rows.map((row) => `${row.id} ${row.teaching}+${row.exercises}`).join(', ');
    t.diagnostic(`core ${schedule.total} min + a ${BREAK_MINUTES}-minute break = ${day} (${formatClock(day)}), deep dives ${schedule.deepDives} min, homework ${schedule.homework} min: ${table}`);
    assert.ok(
      day >= CORE_PATH_MINUTES.min && day <= CORE_PATH_MINUTES.max,
      `the core path adds up to ${schedule.total} minutes and the break to ${BREAK_MINUTES} (${table}); the landing page promises about four hours`,
    );
  });

  it('counts the core path by the realistic rule: the sum of the floors, each promise at least its floor, fits too', () => {
    let floors = 0;
    for (const file of episodes) {
      const lines = budgetLines(file.source, declaredOf(file.frontmatter), planned.durations);
      floors += (lines.find((line) => line.item === 'teaching')?.floor ?? 0) + (lines.find((line) => line.item === 'exercises')?.floor ?? 0);
    }
    assert.ok(floors <= schedule.total, `the floors add up to ${floors} minutes, more than the ${schedule.total} the episodes promise`);
    assert.ok(floors + BREAK_MINUTES <= DAY_MINUTES, `the floors and the break add up to ${floors + BREAK_MINUTES} minutes, over ${DAY_MINUTES}`);
  });

  it('states the same rate, total and break rule on every page that states them (issue 45)', () => {
    const landing = files.find((file) => file.name === 'index.mdx')!;
    const guide = files.find((file) => file.name === 'instructor-guide.mdx')!;
    for (const page of [landing, guide]) {
      const rates = [...page.source.matchAll(/(\d+) words a minute/g)].map((match) => Number(match[1]));
      assert.ok(rates.length > 0, `${page.name} does not state the reading rate`);
      assert.deepEqual([...new Set(rates)], [WORDS_PER_MINUTE], `${page.name} states a reading rate other than ${WORDS_PER_MINUTE} words a minute`);
      const breaks = [...page.source.matchAll(/(\d+)-minute break|break of (?:about )?(\d+) minutes/g)].map((match) => Number(match[1] ?? match[2]));
      assert.deepEqual([...new Set(breaks)], [BREAK_MINUTES], `${page.name} states a break other than one of ${BREAK_MINUTES} minutes`);
      assert.match(page.source, new RegExp(`\\b${DAY_MINUTES} minutes\\b`), `${page.name} does not state the ${DAY_MINUTES}-minute limit`);
    }
    const total = /core path, 1 to 10: (\d+) minutes\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\*/.exec(guide.source);
    assert.ok(total, "the instructor guide's schedule has no total line");
    const teaching = schedule.rows.reduce((sum, row) => sum + row.teaching, 0);
    const exercises = schedule.rows.reduce((sum, row) => sum + row.exercises, 0);
    assert.deepEqual([Number(total[1]), Number(total[2]), Number(total[3])], [schedule.total, teaching, exercises], "the instructor guide's total line");
  });

  it('has the learner write code on the core path of every lab episode, and the design challenge after it (issue 44)', () => {
    // The lab episodes: each teaches its own lab (04 runs event-loop too, for a reading challenge).
    const labEpisodes = ['05-event-loop.mdx', '06-task-granularity.mdx', '07-native-kernel.mdx', '08-gpu-batching.mdx'];
    for (const name of labEpisodes) {
      const file = episodes.find((episode) => episode.name === name);
      assert.ok(file, `${name} is missing`);
      const lab = labField(file.frontmatter);
      assert.ok(lab, `${name} names no lab`);
      const core = sectionsOf(file.source).filter((section) => section.kind === 'core');
      const challenges = core.flatMap((section) => section.challenges.filter((challenge) => !challenge.optional));
      const coding = challenges.filter((challenge) => challenge.coding && challenge.minutes !== undefined && challenge.minutes >= 5 && challenge.minutes <= 15);
      assert.ok(coding.length > 0, `${file.name}: no core challenge of 5-15 minutes has the learner write code in exercises/${lab}`);
      assert.ok(
        coding.some((challenge) => challenge.runs.some((run) => run.lab === lab)),
        `${file.name}: the core coding challenge does not say how to measure the code (npm run lab -- ${lab} ...)`,
      );
      const titles = challenges.map((challenge) => challenge.title);
      const design = titles.findIndex((title) => title.startsWith('Design'));
      assert.ok(design > titles.indexOf(coding[0]!.title), `${file.name}: the design challenge must be on the core path, after the coding challenge it builds on (${titles.join(' | ')})`);
    }
  });

  it('gives the capstone its homework, and the landing page says so', () => {
    assert.ok(schedule.homework >= 60, `homework adds up to ${schedule.homework} minutes; the capstone needs about two hours`);
    const landing = files.find((file) => file.name === 'index.mdx');
    assert.ok(landing, 'episodes/index.mdx is missing');
    assert.match(landing.source, /about four hours/i, 'the landing page no longer promises about four hours');
    assert.match(landing.source, /homework/i, 'the landing page does not mention the homework');
    assert.match(landing.source, /deep dives/i, 'the landing page does not mention the deep dives');
  });

  it('has an instructor guide that does not contradict the episode pages', () => {
    const guide = files.find((file) => file.name === 'instructor-guide.mdx');
    assert.ok(guide);
    assert.doesNotMatch(guide.source, /minutes at the top of each episode page are larger/);
    for (const row of schedule.rows) {
      const number = Number(row.id.slice(0, 2));
      const line = new RegExp(`^\\| \\[${number}\\. [^\\]]*\\]\\(\\.\\./${row.id}/\\)[^|]*\\| (\\d+) \\| (\\d+) \\|`, 'm').exec(guide.source);
      assert.ok(line, `the instructor guide's schedule has no row for ${row.id}`);
      assert.deepEqual([Number(line[1]), Number(line[2])], [row.teaching, row.exercises], `the instructor guide's minutes for ${row.id}`);
    }
  });
});

describe('the derivation, on a hand-made episode', () => {
  // Reference: about 345 core words (300 + the markup and the challenge's text) at 150 wpm = 3 min; the core
  // challenge declares 5 (floor 3 + a quick run of 45 s rounded up = 4); one full run of event-loop (135 s) = 3 min;
  // the deep dive has about 145 words (1 min) and a 4-minute challenge = 5; the optional challenge has a few words
  // (1 min) + 3 = 4.
  const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
  const source = [
    '---',
    'title: T',
    '---',
    "import X from './x.astro';",
    words(300),
    '<RunLab lab="event-loop" />',
    '<InstructorNote>' + words(500) + '</InstructorNote>',
    '## Core',
    '<Challenge title="Try" minutes={5}>',
    'Run `npm run lab -- event-loop --quick` and read it.',
    '<Solution label="Hint">' + words(400) + '</Solution>',
    '<Solution>' + words(30) + '</Solution>',
    '</Challenge>',
    '<Challenge title="Extra" optional minutes={4}>five words in this one</Challenge>',
    '## Deeper',
    '<DeepDive minutes={5} />',
    words(130),
    '<Challenge title="Deep one" minutes={4}>three words</Challenge>',
  ].join('\n');
  const declared: DeclaredMinutes = {
    teaching: 3,
    exercises: 8,
    deepDives: [
      { title: 'Deeper', minutes: 5 },
      { title: 'Extra', minutes: 4 },
    ],
    homework: undefined,
    lab: 'event-loop',
  };

  it('counts words a learner reads: no frontmatter, imports, instructor notes or folded hints', () => {
    assert.equal(countWords('a b-c `d` 1.5 -- ** e'), 5);
    const text = readableText(source);
    assert.doesNotMatch(text, /InstructorNote|title: T|import X|label="Hint"/);
  });

  it('counts a comparison as the verb it renders and a claim as its text, not their props (issue 29)', () => {
    const compare = '<Compare run="event-loop" at="value" a="poolOverSpeedup" b="poolAtPSpeedup" more="higher than" less="lower than" />';
    const claim = '<Claim run="event-loop" at="value" a="chunkedPingP99Ms" b="inlinePingP99Ms" expect="less">ping got better</Claim>';
    assert.equal(countWords(readableText(`the pool was ${compare} the other; ${claim}.`)), 3 + 3 + 2 + 3);
  });

  it('splits sections, finds markers, challenges, their runs and the optional ones', () => {
    const sections = sectionsOf(source);
    assert.deepEqual(
      sections.map((s) => [s.title, s.kind, s.declaredMinutes, s.runsLab]),
      [
        [null, 'core', undefined, true],
        ['Core', 'core', undefined, false],
        ['Deeper', 'deep-dive', 5, false],
      ],
    );
    const [tryIt, extra] = challengesOf(source);
    assert.deepEqual(tryIt?.runs, [{ lab: 'event-loop', quick: true }]);
    // A --watch only checks while the learner writes: it is no lab run.
    assert.deepEqual(challengesOf('<Challenge title="W">`npm run lab -- event-loop --watch`, then `npm run lab -- event-loop`</Challenge>')[0]?.runs, [{ lab: 'event-loop', quick: false }]);
    assert.equal(extra?.optional, true);
    assert.equal(tryIt?.optional, false);
  });

  it('derives the floors by hand and accepts promises that meet them', () => {
    const lines = Object.fromEntries(budgetLines(source, declared, LAB_DURATIONS).map((line) => [line.item, line.floor]));
    assert.equal(WORDS_PER_MINUTE, 150);
    assert.equal(CHALLENGE_FLOOR_MINUTES, 3);
    assert.equal(lines['challenge: Try'], 4);
    assert.equal(lines['exercises'], 8); // 5 declared + 3 for the full run
    assert.equal(lines['deep dive: Deeper'], 5);
    assert.equal(lines['deep dive: Extra'], 4);
    assert.deepEqual(budgetProblems('t.mdx', source, declared, LAB_DURATIONS), []);
  });

  it('names every broken promise with its floor', () => {
    const problems = budgetProblems(
      't.mdx',
      source.replace('minutes={5}>', '>'),
      { ...declared, teaching: 0, deepDives: [{ title: 'Deeper', minutes: 6 }, { title: 'Gone', minutes: 3 }] },
      LAB_DURATIONS,
    );
    assert.match(problems[0] ?? '', /^t\.mdx: teaching promises 0 min, but 3\d\d words of the core sections at 150 words per minute \+ 0 results tables and widgets at 1 min take at least 3 min$/);
    assert.deepEqual(problems.slice(1), [
      't.mdx: challenge: Try declares no minutes: add minutes={4} or more (3 min to think and try + runs of event-loop --quick (it declares no minutes={N}))',
      't.mdx: deep dive: Deeper: (its marker says 5, the frontmatter 6); make them equal',
      't.mdx: deep dive: Extra is optional but not in the frontmatter\'s deepDives: add { title, minutes: 4 or more }',
      't.mdx: deepDives lists "Gone", but no section marked <DeepDive /> or optional challenge has that title',
    ]);
  });
});

describe('the in-detail folds (issue 45), on hand-made text', () => {
  const source = [
    '---',
    'title: T',
    '---',
    '## Core',
    Array.from({ length: 140 }, () => 'core').join(' '),
    '<InDetail title="the caveats">',
    Array.from({ length: 160 }, () => 'caveat').join(' '),
    '<MeasuredTable run="x" table="t" />',
    '</InDetail>',
  ].join('\n');

  it('takes the folds out of the core reading and counts them as one optional item, "In detail"', () => {
    const [core] = sectionsOf(source);
    assert.equal(core?.words, 141); // 140 words + "Core"
    assert.equal(core?.detailWords, 167); // 160 words and the tokens of the tags: <InDetail title="the caveats"> (3), the table (3), </InDetail> (1)
    assert.equal(core?.detailWidgets, 1);
    const declared: DeclaredMinutes = { teaching: 1, exercises: 0, deepDives: [{ title: IN_DETAIL_TITLE, minutes: 3 }], homework: undefined, lab: undefined };
    const lines = Object.fromEntries(budgetLines(source, declared, LAB_DURATIONS).map((line) => [line.item, line.floor]));
    assert.equal(lines['teaching'], 1); // 141 words at 150 a minute, no widget outside the fold
    assert.equal(lines[`deep dive: ${IN_DETAIL_TITLE}`], 2 + 1); // 167 words round up to 2 minutes, and the table
    assert.deepEqual(budgetProblems('t.mdx', source, declared, LAB_DURATIONS), []);
    assert.deepEqual(budgetProblems('t.mdx', source, { ...declared, deepDives: [] }, LAB_DURATIONS), [
      `t.mdx: deep dive: ${IN_DETAIL_TITLE} is optional but not in the frontmatter's deepDives: add { title, minutes: 3 or more }`,
    ]);
  });
});

describe('the realistic rule (issue 29), on hand-made text', () => {
  it('counts a minute per results table or widget, and a coding challenge at 1.5 times its minutes', () => {
    const table = ['| n | time |', '| --- | --- |', '| 2 | <Measured run="x" at="headline" /> |'].join('\n');
    const plain = ['| a | b |', '| --- | --- |', '| 1 | 2 |'].join('\n');
    assert.equal(widgetsOf(`<MeasuredTable run="x" table="t" />\n\n<SpeedupChart run="x" />\n\n${table}\n\n${plain}\n`), 3);
    const source = [
      '---',
      'title: T',
      '---',
      'Intro.',
      '<MeasuredTable run="x" table="t" />',
      '## Core',
      '<Challenge title="Code it" minutes={6}>Open `exercises/event-loop/handlers.ts` and write it.</Challenge>',
      '<Challenge title="Think" minutes={4}>Why?</Challenge>',
    ].join('\n');
    const lines = Object.fromEntries(budgetLines(source, { teaching: 0, exercises: 0, deepDives: [], homework: undefined, lab: undefined }, LAB_DURATIONS).map((l) => [l.item, l.floor]));
    assert.equal(WIDGET_MINUTES, 1);
    assert.equal(CODING_FACTOR, 1.5);
    assert.equal(lines['teaching'], 1 + 1); // a few words round up to a minute, and one table
    assert.equal(lines['exercises'], 9 + 4); // 6 declared x 1.5 for the coding challenge, 4 for the other
  });
});
