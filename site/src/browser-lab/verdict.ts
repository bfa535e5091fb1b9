/**
 * The in-page labs' verdict on a ratio (a speedup over the baseline), from where its 95 % interval lies against 1:
 * "faster", "slower", or, when the interval contains 1, what the run is missing to decide, from its own spread
 * (samplesToResolve): "no clear difference yet: needs about 40 more samples per case" rather than a bare "no clear
 * difference", which a learner would read as "there is none".
 */
import { samplesToResolve } from './core-adapter.ts';

/** What the run knows about the ratio besides its interval: its point estimate, the samples per case, and its kind. */
export interface VerdictEvidence {
  speedup: number;
  samples: number;
  quick: boolean;
  /** The rounds a full run (Run) takes, for the advice; 15 when not given (runner.ts, roundsFor). */
  fullRounds?: number;
}

export function verdict(ci: readonly [number, number], evidence?: VerdictEvidence): string {
  if (ci[0] > 1) return 'faster';
  if (ci[1] < 1) return 'slower';
  if (evidence === undefined || evidence.samples < 1 || !(evidence.speedup > 0) || !(ci[0] > 0)) return 'no clear difference';
  const resolution = samplesToResolve(evidence.speedup, ci, evidence.samples);
  if (resolution.resolved) return 'no clear difference';
  if (resolution.moreSamples === null) return 'no difference measured: the two took the same time here';
  const how = evidence.quick
    ? `Run (not Quick run) takes ${evidence.fullRounds ?? 15} per case; a quieter machine narrows the interval too`
    : 'a quieter machine (other tabs and programs closed) narrows the interval';
  const more = resolution.moreSamples;
  return `no clear difference yet: from this run's spread it needs about ${more} more sample${more === 1 ? '' : 's'} per case (it has ${evidence.samples}); ${how}`;
}
