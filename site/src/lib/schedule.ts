/**
 * The course schedule from the episodes' frontmatter minutes: per episode the core path (teaching + exercises) with a
 * running clock from the start of the course, and apart from it the optional deep dives and the homework, each with
 * its minutes. Pure, so the landing page's tables and the tests compute it the same way.
 */

export interface OptionalItem {
  title: string;
  minutes: number;
}

export interface ScheduleInput {
  id: string;
  title: string;
  /** Minutes of teaching on the core path. */
  teaching: number;
  /** Minutes of exercises on the core path. */
  exercises: number;
  /** Optional deep dives and optional challenges, outside the core path. */
  deepDives?: readonly OptionalItem[];
  /** Minutes of homework after class. */
  homework?: number;
}

export interface ScheduleRow extends ScheduleInput {
  /** teaching + exercises: the episode's core path, minutes. */
  total: number;
  /** Minutes from the start of the course when this episode starts. */
  startsAt: number;
  /** Minutes from the start of the course when this episode's core path ends. */
  endsAt: number;
  /** Minutes of all its deep dives. */
  deepDiveMinutes: number;
}

export interface Schedule {
  rows: ScheduleRow[];
  teaching: number;
  exercises: number;
  /** The core path of the whole course, minutes. */
  total: number;
  /** All optional deep dives together, minutes. */
  deepDives: number;
  /** All homework together, minutes. */
  homework: number;
}

function checkMinutes(id: string, field: string, minutes: number, allowZero = true): void {
  if (!Number.isInteger(minutes) || minutes < (allowZero ? 0 : 1)) {
    throw new RangeError(`episode "${id}": ${field} must be a whole number of minutes >= ${allowZero ? 0 : 1}, got ${minutes}`);
  }
}

/** Rows in the order given (teaching order), each with its running clock, and the column totals. */
export function buildSchedule(episodes: readonly ScheduleInput[]): Schedule {
  const rows: ScheduleRow[] = [];
  let clock = 0;
  for (const episode of episodes) {
    for (const field of ['teaching', 'exercises'] as const) checkMinutes(episode.id, field, episode[field]);
    for (const dive of episode.deepDives ?? []) checkMinutes(episode.id, `deep dive "${dive.title}"`, dive.minutes, false);
    if (episode.homework !== undefined) checkMinutes(episode.id, 'homework', episode.homework, false);
    const total = episode.teaching + episode.exercises;
    const deepDiveMinutes = (episode.deepDives ?? []).reduce((sum, dive) => sum + dive.minutes, 0);
    rows.push({ ...episode, total, startsAt: clock, endsAt: clock + total, deepDiveMinutes });
    clock += total;
  }
  return {
    rows,
    teaching: rows.reduce((sum, row) => sum + row.teaching, 0),
    exercises: rows.reduce((sum, row) => sum + row.exercises, 0),
    total: clock,
    deepDives: rows.reduce((sum, row) => sum + row.deepDiveMinutes, 0),
    homework: rows.reduce((sum, row) => sum + (row.homework ?? 0), 0),
  };
}

/** Minutes as a clock reading "h:mm", e.g. 0 -> "0:00", 75 -> "1:15", 255 -> "4:15". */
export function formatClock(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0) {
    throw new RangeError(`minutes must be a whole number >= 0, got ${minutes}`);
  }
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The fragment id Starlight gives a heading (github-slugger's rule): lower case, punctuation dropped, each space a
 * dash. "Check the machine: `npm run doctor`" -> "check-the-machine-npm-run-doctor".
 */
export function headingAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}
