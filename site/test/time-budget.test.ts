/**
 * The time budget (issues 19 and 29): the minutes every episode promises cover what its text asks of a learner, by
 * a realistic rule: reading at 150 words a minute, one minute per results table or widget, each challenge at the
 * minutes it declares (at least thinking time plus its runs) and coding challenges at 1.5 times that, the lab runs
 * from the labs' planned durations (support/lab-durations.ts). The core path plus one break must fit the four hours
 * the landing page promises; deep dives and homework carry their own minutes. No build needed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetLines,
  BREAK_MINUTES,
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

/** "About four hours" on the landing page: the core path and one break may not exceed it, nor fall far short of it. */
const CORE_PATH_MINUTES = { min: 200, max: 240 };

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

  it(`fits its core path and one break into about four hours (${CORE_PATH_MINUTES.min}-${CORE_PATH_MINUTES.max} minutes)`, (t) => {
    const table = schedule.rows.map((row) => `${row.id} ${row.teaching}+${row.exercises}`).join(', ');
    const day = schedule.total + BREAK_MINUTES;
    t.diagnostic(`core ${schedule.total} min + a ${BREAK_MINUTES}-minute break = ${day} (${formatClock(day)}), deep dives ${schedule.deepDives} min, homework ${schedule.homework} min: ${table}`);
    assert.ok(
      day >= CORE_PATH_MINUTES.min && day <= CORE_PATH_MINUTES.max,
      `the core path adds up to ${schedule.total} minutes and the break to ${BREAK_MINUTES} (${table}); the landing page promises about four hours`,
    );
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
