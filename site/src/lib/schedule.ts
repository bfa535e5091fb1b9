/**
 * The course schedule from the episodes' frontmatter minutes: per episode teaching + exercises, and a running
 * clock from the start of the course. Pure, so the landing page's table and the tests compute it the same way.
 */

export interface ScheduleInput {
  id: string;
  title: string;
  /** Minutes of teaching. */
  teaching: number;
  /** Minutes of exercises. */
  exercises: number;
}

export interface ScheduleRow extends ScheduleInput {
  /** teaching + exercises, minutes. */
  total: number;
  /** Minutes from the start of the course when this episode starts. */
  startsAt: number;
  /** Minutes from the start of the course when this episode ends. */
  endsAt: number;
}

export interface Schedule {
  rows: ScheduleRow[];
  teaching: number;
  exercises: number;
  /** The whole course, minutes. */
  total: number;
}

/** Rows in the order given (teaching order), each with its running clock, and the column totals. */
export function buildSchedule(episodes: readonly ScheduleInput[]): Schedule {
  const rows: ScheduleRow[] = [];
  let clock = 0;
  for (const episode of episodes) {
    for (const field of ['teaching', 'exercises'] as const) {
      const minutes = episode[field];
      if (!Number.isInteger(minutes) || minutes < 0) {
        throw new RangeError(`episode "${episode.id}": ${field} must be a whole number of minutes >= 0, got ${minutes}`);
      }
    }
    const total = episode.teaching + episode.exercises;
    rows.push({ ...episode, total, startsAt: clock, endsAt: clock + total });
    clock += total;
  }
  return {
    rows,
    teaching: rows.reduce((sum, row) => sum + row.teaching, 0),
    exercises: rows.reduce((sum, row) => sum + row.exercises, 0),
    total: clock,
  };
}

/** Minutes as a clock reading "h:mm", e.g. 0 -> "0:00", 75 -> "1:15", 255 -> "4:15". */
export function formatClock(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0) {
    throw new RangeError(`minutes must be a whole number >= 0, got ${minutes}`);
  }
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}
