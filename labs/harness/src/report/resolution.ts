/**
 * What a run that cannot tell its headline case from the baseline is missing, in words: the headline's interval
 * contains 1, and from this run's own spread about N more samples per case would narrow it enough (core's
 * samplesToResolve). Printed under the headline (terminal and report.md), so a learner whose quick run shows "no clear
 * difference" learns what to do about it rather than that there is no difference.
 */
import { caseLabel, type Results, sameCase, samplesToResolve } from '@parallel-course/core';

/** The sentence, or null when the headline resolves (or there is none). */
export function resolutionSentence(results: Results): string | null {
  const h = results.headline;
  if (h === null) return null;
  const headlineCase = results.cases.find((c) => sameCase(c, h));
  const n = headlineCase?.samplesMs.length ?? 0;
  if (n < 1) return null;
  const resolution = samplesToResolve(h.speedup, h.ci95, n);
  if (resolution.resolved) return null;
  const what = `Not resolved: the interval contains 1, so this run cannot tell ${caseLabel(h)} from ${h.baseline}`;
  if (resolution.moreSamples === null) return `${what}; the two measured the same here, and more samples would not show a difference that is not there.`;
  const more = resolution.moreSamples;
  // The advice that can help this run: a busy machine first (the competing-load note), then more samples.
  const busy = results.notes.some((note) => note.startsWith('Competing load'));
  const how = busy
    ? `Other processes used the CPUs while it measured (see the notes): rerun when the machine is quieter${results.quick ? ', or without --quick for more samples' : ''}.`
    : results.quick
      ? 'A run without --quick takes more samples of each case.'
      : 'More rounds, or a quieter machine, narrow the interval.';
  return `${what}. From this run's spread it needs about ${more} more sample${more === 1 ? '' : 's'} per case (it has ${n}). ${how}`;
}
