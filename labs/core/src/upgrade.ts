/**
 * The upgrade steps for older results files, one per version, run in turn up to the current version (5):
 *
 * 4 -> 5: nothing to change. Version 5 adds a case's `sampleProcesses` (the process of each sample, a graded run's
 * forks) and the grade's `pairing: 'processes'`; a version 4 file's samples came from one process a side, which is
 * what the field's absence says, so its numbers recompute as they were.
 *
 * 3 -> 4: the graded run's fingerprint of the course's solution, `referenceSolution`, is `solutionFingerprint` ("the
 * reference" names only the committed reference runs now; docs/architecture.md, "Names"). Nothing else changed.
 *
 * 2 -> 3 (the harness before the core): version 2 left its readers to guess what the numbers mean; this is the only place that still guesses, once, so no
 * reader has to:
 *   - the lab's baseline variant: the one its speedups name (they all name the same one in version 2);
 *   - each speedup's baseline case: the baseline case that shares the most of its params (how the harness chose it);
 *   - the case and speedup an efficiency came from: the one-worker case its `efficiencyBasis` says, else the baseline;
 *   - what one sample is: the lab's declaration where the caller passes one (the harness does, from the lab
 *     definition), else "1 sample per sample";
 *   - the sweeps: the lab's declaration where the caller passes one, else none (readers then draw no sweep charts);
 *   - the cgroup quota recorded twice: the environment's copy is dropped, `cpus.quota` stays.
 * Files older than version 2 are refused by parseResults (read-results.ts) with the message that says how to re-run.
 */
import { findBaseline, findOneWorkerCase } from './case-baselines.ts';
import { sameCase } from './case-identity.ts';
import type { Params, SampleUnit, Sweep } from './results-schema.ts';

/** The oldest version these steps read; older files are refused (read-results.ts). */
export const OLDEST_UPGRADABLE_VERSION = 2;

/** What a lab definition declares that version 2 did not record (the harness passes its lab's, the browser none). */
export interface LabDeclarations {
  baseline?: string;
  sweeps?: Sweep[];
  sampleItems?(entry: { variant: string; params: Params; workPerSample: { amount: number; unit: string } }): SampleUnit;
}

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Loose[] => (Array.isArray(v) ? v.filter(isObject) : []);
const caseLike = (v: Loose) => ({ ...v, variant: String(v['variant']), params: (isObject(v['params']) ? v['params'] : {}) as Params, workers: typeof v['workers'] === 'number' ? v['workers'] : undefined });

/**
 * A results object of version 2, 3 or 4 as the current version, 5 (a new object; the input is not changed). Fields a step
 * cannot read are left as they are, so the schema names them afterwards. Other versions are returned unchanged.
 */
export function upgradeResults(data: Loose, declared: LabDeclarations = {}): Loose {
  let out: Loose = structuredClone(data);
  if (out['schemaVersion'] === 2) out = version2To3(out, declared);
  if (out['schemaVersion'] === 3) out = version3To4(out);
  if (out['schemaVersion'] === 4) out['schemaVersion'] = 5; // 4 -> 5: see the module comment
  return out;
}

/**
 * 3 -> 4: `referenceSolution` is `solutionFingerprint` (same value). A `solutionFingerprint` in a version 3 file meant
 * nothing there (the schema dropped it), so it is dropped here too. Changes `out` in place.
 */
function version3To4(out: Loose): Loose {
  delete out['solutionFingerprint'];
  if ('referenceSolution' in out) out['solutionFingerprint'] = out['referenceSolution'];
  delete out['referenceSolution'];
  out['schemaVersion'] = 4;
  return out;
}

/** 2 -> 3: what a version 2 file left readers to guess, guessed once (above). Changes `out` in place. */
function version2To3(out: Loose, declared: LabDeclarations): Loose {
  const cases = list(out['cases']).map(caseLike);
  const speedups = list(out['speedups']);
  const headline = isObject(out['headline']) ? out['headline'] : null;
  const baseline = declared.baseline ?? (speedups[0]?.['baseline'] as string | undefined) ?? (headline?.['baseline'] as string | undefined) ?? cases[0]?.variant ?? '';
  out['baseline'] = baseline;
  out['sweeps'] = declared.sweeps ?? [];
  for (const c of list(out['cases'])) {
    const work = isObject(c['workPerSample']) ? (c['workPerSample'] as { amount: number; unit: string }) : { amount: 1, unit: 'sample' };
    c['sample'] = declared.sampleItems?.({ variant: String(c['variant']), params: (c['params'] ?? {}) as Params, workPerSample: work }) ?? { item: 'sample', itemsPerSample: 1 };
  }
  const upgradeSpeedup = (s: Loose): void => {
    const target = caseLike(s);
    const base = findBaseline(cases, baseline, target);
    s['baselineParams'] = base ? base.params : {};
    if (typeof s['efficiency'] === 'number' && typeof s['workers'] === 'number') {
      const self = cases.find((c) => sameCase(c, target));
      const one = s['efficiencyBasis'] === 'one-worker' && self ? findOneWorkerCase(cases, { ...self, workers: s['workers'] }) : null;
      const over = one ?? base;
      if (over) s['efficiencyOver'] = { variant: over.variant, params: over.params };
      s['efficiencySpeedup'] = s['efficiency'] * s['workers'];
    }
  };
  speedups.forEach(upgradeSpeedup);
  if (headline) upgradeSpeedup(headline);
  if (isObject(out['environment'])) delete out['environment']['cgroupCpuQuota'];
  out['schemaVersion'] = 3;
  return out;
}
