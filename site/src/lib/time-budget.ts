/**
 * An honest floor under an episode's minutes, derived from its text: reading time from word counts, the time each
 * challenge declares (itself at least a floor: thinking time plus the lab runs its commands ask for), and one full
 * run of the episode's lab where the core shows how to run it. The frame test (test/time-budget.test.ts) fails when
 * the frontmatter promises fewer minutes than this. Pure: the text and the lab durations are inputs.
 *
 * The episode's sections (`## ` headings) are the core path unless marked, right under their heading, with
 * `<DeepDive minutes={N} />` (optional, listed in the frontmatter's `deepDives`) or `<Homework minutes={N} />` (the
 * capstone's out-of-class part, the frontmatter's `homework`). A `<Challenge ... optional>` in a core section is an
 * optional item too, listed in `deepDives` under its title. The `<InDetail>` folds of core sections (the caveats and
 * side facts of the text around them, issue 45) are read only by who opens them: together they are one optional
 * item, listed in `deepDives` as "In detail" (IN_DETAIL_TITLE) with their reading minutes.
 */

/**
 * Reading speed for the course's text, words per minute. Technical prose with tables and code is read at about 150
 * to 200 words per minute; the course takes the slow end (issue 29: a room reads, asks and rereads) for every word a
 * learner sees (code, tables and solutions included, instructor notes and folded hints left out).
 */
export const WORDS_PER_MINUTE = 150;

/** Minutes a learner spends on each results table, chart or interactive widget of the core path (issue 29). */
export const WIDGET_MINUTES = 1;

/**
 * A coding challenge (one that sends the learner to a file under exercises/ or native code) takes this many times
 * the minutes it declares: writing, compiling and fixing code runs over (issue 29).
 */
export const CODING_FACTOR = 1.5;

/** The one break of the day, in minutes, counted against the four hours (issue 29). */
export const BREAK_MINUTES = 10;

/**
 * The most the core path and its one break may take, in minutes: four hours less 15 minutes of slack for questions
 * (issue 45). The core path is every episode's declared teaching and exercise minutes, each at least its floor.
 */
export const DAY_MINUTES = 225;

/** The frontmatter `deepDives` title of an episode's `<InDetail>` folds, read together as one optional item. */
export const IN_DETAIL_TITLE = 'In detail';

const IN_DETAIL_BLOCK = /<InDetail\b[^>]*>[\s\S]*?<\/InDetail>/g;

/** Minutes a challenge needs at least, besides reading it and the lab runs it asks for: thinking, trying, checking. */
export const CHALLENGE_FLOOR_MINUTES = 3;

/** A lab's planned run times, in seconds. */
export interface LabDuration {
  full: number;
  quick: number;
}

export interface LabRun {
  lab: string;
  quick: boolean;
}

export interface ChallengeItem {
  title: string;
  /** Minutes the challenge declares (`minutes={N}`), or undefined when it declares none. */
  minutes: number | undefined;
  optional: boolean;
  /** Words of its text (prompt and solution; folded hints are not counted). */
  words: number;
  /** The lab runs its text asks for: one per `npm run lab -- <lab>` command (not `--watch`, which only checks). */
  runs: LabRun[];
  /** It asks the learner to write code in a file of exercises/ (counted at CODING_FACTOR times its minutes). */
  coding: boolean;
}

export type SectionKind = 'core' | 'deep-dive' | 'homework';

export interface EpisodeSection {
  /** The `## ` heading's text; null for the text before the first heading. */
  title: string | null;
  kind: SectionKind;
  /** Minutes its marker declares (deep dives and homework). */
  declaredMinutes: number | undefined;
  /** Words a learner reads in it (see WORDS_PER_MINUTE), without its optional challenges (they count on their own). */
  words: number;
  challenges: ChallengeItem[];
  /** True when it shows how to run the episode's lab (`<RunLab`) outside an optional challenge. */
  runsLab: boolean;
  /** Results tables, charts and interactive widgets outside its optional challenges (WIDGET_MINUTES each). */
  widgets: number;
  /** Words and widgets of its `<InDetail>` folds (core sections only; a deep dive's folds are its own words). */
  detailWords: number;
  detailWidgets: number;
}

/** Components a learner reads as a table or works as a widget: one minute each. */
const WIDGET_TAGS = /<(?:MeasuredTable|SpeedupChart|RunFigure|EventLoopDemo|AmdahlExplorer|DecisionChart|ResultsViewer|KnowledgeCheck)\b/g;

/** Results tables and widgets of a text: the components above and the markdown tables that quote a run. */
export function widgetsOf(text: string): number {
  const components = text.match(WIDGET_TAGS)?.length ?? 0;
  // A markdown table is a block of lines starting with "|"; it is a results table when it quotes a <Measured>.
  const tables = text.split(/\n(?!\|)/).filter((block) => /^\|.*\n\|\s*:?-/m.test(block) && /<Measured\b/.test(block)).length;
  return components + tables;
}

/** Words of a text: whitespace-separated tokens with at least one letter or digit. */
export function countWords(text: string): number {
  return (text.match(/\S+/g) ?? []).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
}

/**
 * The text a learner reads: without frontmatter, imports, instructor notes and folded hints (`<Solution label="...
 * hint">`). A `<Compare ... />` reads as the verb phrase it renders (three words, as "within noise of"), and the tags
 * of a `<Claim>` read as nothing (their text is what is read): their props are not lesson text.
 */
export function readableText(source: string): string {
  return source
    .replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '')
    .replace(/<Compare\b[^>]*\/>/g, 'within noise of')
    .replace(/<Claim\b[^>]*>|<\/Claim>/g, '')
    // The MDX imports of components (not the `import` lines of code examples, which a learner reads).
    .replace(/^import .* from ['"][^'"]*(?:\.astro|@astrojs\/[^'"]*)['"];?$/gm, '')
    .replace(/<InstructorNote>[\s\S]*?<\/InstructorNote>/g, '')
    .replace(/<Solution\s+label="[^"]*hint[^"]*"\s*>[\s\S]*?<\/Solution>/gi, '');
}

const NUMBER_PROP = (name: string) => new RegExp(`\\b${name}=\\{\\s*(\\d+)\\s*\\}`);

/** The challenges of a text with their declared minutes, optional flag and the lab runs they ask for. */
export function challengesOf(text: string): ChallengeItem[] {
  const items: ChallengeItem[] = [];
  for (const match of text.matchAll(/<Challenge\b([^>]*)>([\s\S]*?)<\/Challenge>/g)) {
    const [, attributes = '', body = ''] = match;
    const minutes = NUMBER_PROP('minutes').exec(attributes)?.[1];
    const runs: LabRun[] = [];
    for (const command of body.matchAll(/npm run lab -- ([a-z0-9-]+)([^\n`]*)/g)) {
      const [, lab = '', rest = ''] = command;
      // `--watch` only re-runs the check while the learner edits (seconds, no timing): it is part of the writing time.
      if (lab.startsWith('-') || /--watch\b/.test(rest)) continue;
      runs.push({ lab, quick: /--quick\b/.test(rest) });
    }
    items.push({
      title: /\btitle="([^"]*)"/.exec(attributes)?.[1] ?? '',
      minutes: minutes === undefined ? undefined : Number(minutes),
      optional: /(^|\s)optional(\s|=|$)/.test(attributes),
      words: countWords(match[0]),
      runs,
      coding: /\bexercises\/[\w./-]+\.(?:ts|cc|mts|js)\b/.test(body),
    });
  }
  return items;
}

/** The episode's sections in order, each with its kind, words, challenges and marker. */
export function sectionsOf(source: string): EpisodeSection[] {
  const text = readableText(source);
  const parts = text.split(/^(?=## )/m);
  return parts
    .map((part) => {
      const heading = /^## (.*)$/m.exec(part);
      const title = part.startsWith('## ') && heading ? heading[1]!.trim() : null;
      // The marker must come first under the heading (blank lines allowed), so a section cannot be half optional.
      const afterHeading = title === null ? part : part.slice(part.indexOf('\n') + 1).trimStart();
      const marker = /^<(DeepDive|Homework)\b([^>]*)\/>/.exec(afterHeading);
      const kind: SectionKind = marker?.[1] === 'DeepDive' ? 'deep-dive' : marker?.[1] === 'Homework' ? 'homework' : 'core';
      const declared = marker ? NUMBER_PROP('minutes').exec(marker[2] ?? '')?.[1] : undefined;
      // Optional challenges are items of their own: their words and their RunLab are not the section's.
      const withOptional = part.replace(/<Challenge\b[^>]*\boptional\b[^>]*>[\s\S]*?<\/Challenge>/g, '');
      // A core section's folds are not core reading: they count as the episode's "In detail" item.
      const folds = kind === 'core' ? (withOptional.match(IN_DETAIL_BLOCK) ?? []) : [];
      const withoutOptional = kind === 'core' ? withOptional.replace(IN_DETAIL_BLOCK, '') : withOptional;
      return {
        title,
        kind,
        declaredMinutes: declared === undefined ? undefined : Number(declared),
        words: countWords(withoutOptional),
        challenges: challengesOf(part),
        runsLab: /<RunLab\b/.test(withoutOptional),
        widgets: widgetsOf(withoutOptional),
        detailWords: folds.reduce((sum, fold) => sum + countWords(fold), 0),
        detailWidgets: folds.reduce((sum, fold) => sum + widgetsOf(fold), 0),
      };
    })
    .filter((section) => section.title !== null || section.words > 0 || section.challenges.length > 0);
}

/** Minutes of reading for a number of words, rounded up. */
function readingMinutes(words: number): number {
  return Math.ceil(words / WORDS_PER_MINUTE);
}

/** Whole minutes of the given lab runs, rounded up once for their sum. */
function runMinutes(runs: readonly LabRun[], durations: Readonly<Record<string, LabDuration>>): number {
  let seconds = 0;
  for (const run of runs) {
    const duration = durations[run.lab];
    if (duration === undefined) throw new RangeError(`no planned duration for the lab "${run.lab}"`);
    seconds += run.quick ? duration.quick : duration.full;
  }
  return Math.ceil(seconds / 60);
}

/** The least a challenge can honestly take: thinking time plus its runs. */
function challengeFloor(challenge: ChallengeItem, durations: Readonly<Record<string, LabDuration>>): number {
  return CHALLENGE_FLOOR_MINUTES + runMinutes(challenge.runs, durations);
}

/** What a challenge counts for on the schedule: its declared minutes (else its floor), 1.5 times for coding. */
function challengeMinutes(challenge: ChallengeItem, durations: Readonly<Record<string, LabDuration>>): number {
  const minutes = challenge.minutes ?? challengeFloor(challenge, durations);
  return challenge.coding ? Math.ceil(minutes * CODING_FACTOR) : minutes;
}

export interface DeclaredMinutes {
  teaching: number;
  exercises: number;
  deepDives: readonly { title: string; minutes: number }[];
  homework: number | undefined;
  /** The lab the episode runs (frontmatter `lab`). */
  lab: string | undefined;
}

export interface BudgetLine {
  /** What is estimated: "teaching", "exercises", "deep dive: <title>", "homework", "challenge: <title>". */
  item: string;
  declared: number;
  /** The derived floor, in minutes. */
  floor: number;
  /** How the floor was derived, in words. */
  derivation: string;
}

type Durations = Readonly<Record<string, LabDuration>>;

/** Teaching: the core sections' words at reading speed and their tables and widgets. */
function teachingLine(core: readonly EpisodeSection[], declared: DeclaredMinutes): BudgetLine {
  const coreWords = core.reduce((sum, section) => sum + section.words, 0);
  const coreWidgets = core.reduce((sum, section) => sum + section.widgets, 0);
  return {
    item: 'teaching',
    declared: declared.teaching,
    floor: readingMinutes(coreWords) + coreWidgets * WIDGET_MINUTES,
    derivation: `${coreWords} words of the core sections at ${WORDS_PER_MINUTE} words per minute + ${coreWidgets} results tables and widgets at ${WIDGET_MINUTES} min`,
  };
}

/** Exercises: the core sections' required challenges (coding ones 1.5 times), and one full lab run where a section runs it. */
function exercisesLine(core: readonly EpisodeSection[], declared: DeclaredMinutes, durations: Durations): BudgetLine {
  const coreChallenges = core.flatMap((section) => section.challenges.filter((challenge) => !challenge.optional));
  const labRun = declared.lab !== undefined && core.some((section) => section.runsLab) ? runMinutes([{ lab: declared.lab, quick: false }], durations) : 0;
  const coding = coreChallenges.filter((challenge) => challenge.coding).length;
  return {
    item: 'exercises',
    declared: declared.exercises,
    floor: coreChallenges.reduce((sum, challenge) => sum + challengeMinutes(challenge, durations), 0) + labRun,
    derivation: `${coreChallenges.length} core challenges' minutes (${coding} coding, at ${CODING_FACTOR} times)${labRun > 0 ? ` + one full run of ${declared.lab} (${labRun} min)` : ''}`,
  };
}

function challengeLine(challenge: ChallengeItem, durations: Durations): BudgetLine {
  const runs = challenge.runs.map((run) => `${run.lab}${run.quick ? ' --quick' : ''}`).join(', ');
  return {
    item: `challenge: ${challenge.title}`,
    declared: challenge.minutes ?? 0,
    floor: challengeFloor(challenge, durations),
    derivation: `${CHALLENGE_FLOOR_MINUTES} min to think and try${runs ? ` + runs of ${runs}` : ''}${challenge.minutes === undefined ? ' (it declares no minutes={N})' : ''}`,
  };
}

/** An optional item as the frontmatter's deepDives should list it: its title, its own marker's minutes and its floor. */
interface OptionalItem {
  title: string;
  marker: number | undefined;
  floor: number;
  derivation: string;
}

/** Optional items: the core sections' <InDetail> folds, deep-dive sections and optional challenges of core sections. */
function optionalItems(sections: readonly EpisodeSection[], core: readonly EpisodeSection[], durations: Durations): OptionalItem[] {
  const detailWords = core.reduce((sum, section) => sum + section.detailWords, 0);
  const detailWidgets = core.reduce((sum, section) => sum + section.detailWidgets, 0);
  const folds: OptionalItem[] =
    detailWords > 0
      ? [{ title: IN_DETAIL_TITLE, marker: undefined, floor: readingMinutes(detailWords) + detailWidgets * WIDGET_MINUTES, derivation: `${detailWords} words in the core sections' <InDetail> folds + ${detailWidgets} tables and widgets` }]
      : [];
  const deepDives = sections
    .filter((section) => section.kind === 'deep-dive')
    .map((section) => ({
      title: section.title ?? '',
      marker: section.declaredMinutes,
      floor: readingMinutes(section.words) + section.challenges.reduce((sum, challenge) => sum + (challenge.minutes ?? challengeFloor(challenge, durations)), 0),
      derivation: `${section.words} words + ${section.challenges.length} challenges' minutes`,
    }));
  const optionalChallenges = core.flatMap((section) =>
    section.challenges
      .filter((challenge) => challenge.optional)
      .map((challenge) => ({
        title: challenge.title,
        marker: challenge.minutes,
        floor: readingMinutes(challenge.words) + challengeFloor(challenge, durations),
        derivation: `an optional challenge: ${challenge.words} words + ${CHALLENGE_FLOOR_MINUTES} min to think and try${challenge.runs.length > 0 ? ' + its runs' : ''}`,
      })),
  );
  return [...folds, ...deepDives, ...optionalChallenges];
}

/** An optional item against its frontmatter deepDives entry (missing, or with other minutes than its marker: said so). */
function deepDiveLine(item: OptionalItem, declared: DeclaredMinutes): BudgetLine {
  const entry = declared.deepDives.find((dive) => dive.title === item.title);
  return {
    item: `deep dive: ${item.title}`,
    declared: entry?.minutes ?? 0,
    floor: item.floor,
    derivation: `${item.derivation}${entry === undefined ? ' (missing from the frontmatter deepDives)' : ''}${item.marker !== undefined && entry !== undefined && item.marker !== entry.minutes ? ` (its marker says ${item.marker}, the frontmatter ${entry.minutes})` : ''}`,
  };
}

/** Homework: its sections' words and challenges; none where the episode has neither homework nor its minutes. */
function homeworkLines(sections: readonly EpisodeSection[], declared: DeclaredMinutes, durations: Durations): BudgetLine[] {
  const homework = sections.filter((section) => section.kind === 'homework');
  if (homework.length === 0 && declared.homework === undefined) return [];
  const words = homework.reduce((sum, section) => sum + section.words, 0);
  const challenges = homework.flatMap((section) => section.challenges);
  return [
    {
      item: 'homework',
      declared: declared.homework ?? 0,
      floor: readingMinutes(words) + challenges.reduce((sum, challenge) => sum + (challenge.minutes ?? challengeFloor(challenge, durations)), 0),
      derivation: `${words} words + ${challenges.length} challenges' minutes`,
    },
  ];
}

/** Every estimate of an episode against its derived floor; a line with declared < floor is a broken promise. */
export function budgetLines(source: string, declared: DeclaredMinutes, durations: Durations): BudgetLine[] {
  const sections = sectionsOf(source);
  const core = sections.filter((section) => section.kind === 'core');
  return [
    teachingLine(core, declared),
    exercisesLine(core, declared, durations),
    ...sections.flatMap((section) => section.challenges).map((challenge) => challengeLine(challenge, durations)),
    ...optionalItems(sections, core, durations).map((item) => deepDiveLine(item, declared)),
    ...homeworkLines(sections, declared, durations),
  ];
}

/**
 * What is wrong with an episode's minutes, in words naming the item, its promise and the floor: a promise below the
 * floor, a challenge without minutes, an optional item missing from the frontmatter or a frontmatter entry with no
 * section, a marker that disagrees with the frontmatter. Empty when every promise holds.
 */
export function budgetProblems(
  name: string,
  source: string,
  declared: DeclaredMinutes,
  durations: Readonly<Record<string, LabDuration>>,
): string[] {
  const problems: string[] = [];
  for (const line of budgetLines(source, declared, durations)) {
    if (line.derivation.includes('(it declares no minutes={N})')) {
      problems.push(`${name}: ${line.item} declares no minutes: add minutes={${line.floor}} or more (${line.derivation})`);
    } else if (line.derivation.includes('missing from the frontmatter')) {
      problems.push(`${name}: ${line.item} is optional but not in the frontmatter's deepDives: add { title, minutes: ${line.floor} or more }`);
    } else if (/\(its marker says/.test(line.derivation)) {
      problems.push(`${name}: ${line.item}: ${line.derivation.slice(line.derivation.indexOf('(its marker'))}; make them equal`);
    } else if (line.declared < line.floor) {
      problems.push(`${name}: ${line.item} promises ${line.declared} min, but ${line.derivation} take at least ${line.floor} min`);
    }
  }
  const sections = sectionsOf(source);
  const optionalTitles = new Set([
    ...(sections.some((section) => section.detailWords > 0) ? [IN_DETAIL_TITLE] : []),
    ...sections.filter((section) => section.kind === 'deep-dive').map((section) => section.title ?? ''),
    ...sections.flatMap((section) => section.challenges.filter((challenge) => challenge.optional).map((challenge) => challenge.title)),
  ]);
  for (const dive of declared.deepDives) {
    if (!optionalTitles.has(dive.title)) {
      problems.push(`${name}: deepDives lists "${dive.title}", but no section marked <DeepDive /> or optional challenge has that title`);
    }
  }
  const homework = sections.filter((section) => section.kind === 'homework');
  if (declared.homework !== undefined && homework.length === 0) {
    problems.push(`${name}: homework is ${declared.homework} min, but no section is marked <Homework />`);
  }
  const markedHomework = homework.reduce((sum, section) => sum + (section.declaredMinutes ?? 0), 0);
  if (homework.length > 0 && markedHomework !== declared.homework) {
    problems.push(`${name}: the <Homework /> markers add up to ${markedHomework} min, the frontmatter's homework is ${declared.homework ?? 'missing'}; make them equal`);
  }
  return problems;
}
