/**
 * The course's learning outcomes: one list, read by the landing page (LearningOutcomes.astro), the knowledge check
 * (each question names the outcomes it checks, validated by KnowledgeCheck.astro at build time) and the frame tests
 * (every outcome is checked by at least one question). Each outcome starts with a verb whose result an instructor
 * can see: measure, estimate, choose, show, decide, report.
 */

export interface LearningOutcome {
  /** Stable short id shown on the pages and used to tag questions, e.g. "LO3". */
  id: string;
  /** A few words for tags and tables. */
  short: string;
  /** The full, observable outcome: "By the end you can ..." completes with it. */
  text: string;
}

export const LEARNING_OUTCOMES: readonly LearningOutcome[] = [
  {
    id: 'LO1',
    short: 'Measure before optimising',
    text:
      'Measure where a Node.js program spends its time (a CPU profile, event-loop delay, a benchmark with ' +
      'warm-up and repeated samples) before changing its code.',
  },
  {
    id: 'LO2',
    short: 'Predict the ceiling',
    text:
      "Estimate the best speedup more workers can give with Amdahl's and Gustafson's laws, and explain a " +
      'measured shortfall with the Karp-Flatt serial fraction.',
  },
  {
    id: 'LO3',
    short: 'Choose an execution model',
    text:
      "Choose between async I/O, libuv's threadpool, worker threads, child processes and native threads for a " +
      'workload, size it to the CPUs the job may use, and justify the choice with a measurement.',
  },
  {
    id: 'LO4',
    short: 'Keep the event loop free',
    text:
      'Move CPU-bound work off the event loop (async built-ins, a warmed-up worker pool) and show with the ' +
      'event-loop delay that the server stays responsive.',
  },
  {
    id: 'LO5',
    short: 'Size tasks and move data',
    text:
      'Choose a task size from the measured per-task overhead, and choose between copying, transferring and ' +
      'sharing memory (with Atomics) to move data between threads and processes.',
  },
  {
    id: 'LO6',
    short: 'Cross the native boundary',
    text:
      'Decide when a C++ addon pays by measuring the cost of crossing the boundary and the crossover size, and ' +
      'check its arguments and its results against a reference within a tolerance.',
  },
  {
    id: 'LO7',
    short: 'Batch and spread inference',
    text:
      'Choose a batch size at the knee of the throughput-latency curve, overlap I/O with inference, and split ' +
      'the work over one process per device.',
  },
  {
    id: 'LO8',
    short: 'Report with intervals',
    text:
      "Report a speedup as a ratio of medians with its 95% interval, the baseline's time and the machine, and " +
      'tell a real difference from noise.',
  },
];

/** The outcome with this id, or undefined. */
export function outcomeById(id: string, outcomes: readonly LearningOutcome[] = LEARNING_OUTCOMES) {
  return outcomes.find((outcome) => outcome.id === id);
}

/**
 * Checks a question's outcome tags: at least one, each a known id, no repeats. Returns the problems in words
 * (empty when the tags are fine), so the build and the tests can name the question and the fix.
 */
export function outcomeTagProblems(
  tags: unknown,
  outcomes: readonly LearningOutcome[] = LEARNING_OUTCOMES,
): string[] {
  const known = outcomes.map((outcome) => outcome.id).join(', ');
  if (!Array.isArray(tags) || tags.length === 0) {
    return [`needs outcomes: ['LO1', ...] naming the learning outcomes it checks (one or more of ${known})`];
  }
  const problems: string[] = [];
  tags.forEach((tag, index) => {
    if (typeof tag !== 'string' || outcomeById(tag, outcomes) === undefined) {
      problems.push(`outcome ${JSON.stringify(tag)} is not a learning outcome id; use one of ${known}`);
    } else if (tags.indexOf(tag) !== index) {
      problems.push(`outcome ${tag} is listed twice`);
    }
  });
  return problems;
}

/** The ids of outcomes no question checks, in outcome order. */
export function uncoveredOutcomes(
  questions: readonly { outcomes?: readonly string[] }[],
  outcomes: readonly LearningOutcome[] = LEARNING_OUTCOMES,
): string[] {
  const covered = new Set(questions.flatMap((question) => question.outcomes ?? []));
  return outcomes.map((outcome) => outcome.id).filter((id) => !covered.has(id));
}

/** The fragment id of an outcome on the landing page, e.g. "LO3" -> "lo3". */
export function outcomeAnchor(id: string): string {
  return id.toLowerCase();
}
