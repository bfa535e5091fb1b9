/**
 * What an episode's `<Measured run="<lab>" at="..." />` shows, from a run (issue 20): a pure function of the run's
 * validated results and analysis values, so the site, its tests and any other reader resolve a selector the same way.
 *
 * Selectors (`at`):
 *   headline   the headline speedup with its interval (unit 'x')
 *   baseline   the headline's baseline median time with its interval (ms, shown in the unit that fits)
 *   median     a case's median time with its interval: `case="<variant> <param>=<value> ..."`; with `per="<item>"` the
 *              time per item the run declares for the case (results.json `sample`: per="call" divides by the calls
 *              in one sample), with per="sample" the time of a whole sample. A case whose sample holds more than one
 *              item needs `per`: the page must say which it shows, and it must be the unit the run declares.
 *   speedup    a case's speedup over its baseline (results.speedups) with its interval: `case="..."`
 *   value      a value from analysis/values.json: `name="<key>"`
 *   machine    the run's machine in words (CPU model, P, Node, date)
 * A selector that does not resolve throws MeasuredSelectorError, naming the selector and what the run has.
 * No node: imports: the site's build and the browser can use it.
 */
import type { AnalysisValues, MeasuredValue } from '@parallel-course/core';
import { caseLabel, type CaseResult, formatSignificant, machineText, type Params, type Results, sameCase } from '@parallel-course/core';
import { MeasuredSelectorError } from '../errors.ts';

export { MeasuredSelectorError };

const MEASURED_SELECTORS = ['headline', 'baseline', 'median', 'speedup', 'value', 'machine'] as const;
export type MeasuredAt = (typeof MEASURED_SELECTORS)[number];

export interface MeasuredSelector {
  at: MeasuredAt | string;
  /** For median and speedup: "<variant> <param>=<value> ...". */
  case?: string | undefined;
  /** For value: the key in values.json. */
  name?: string | undefined;
  /** For median and baseline: "sample" or the item the run declares for the case ("call", "request"). */
  per?: string | undefined;
}

export type Resolved =
  | { kind: 'number'; value: number; unit: string; ci95: [number, number] | null; what: string }
  | { kind: 'text'; text: string; what: string };

/** The selector as an episode writes it, for messages: `at="median" case="pool workers=2"`. */
export function describeSelector(lab: string, selector: MeasuredSelector): string {
  const parts = [`run="${lab}"`, `at="${selector.at}"`];
  if (selector.case !== undefined) parts.push(`case="${selector.case}"`);
  if (selector.name !== undefined) parts.push(`name="${selector.name}"`);
  if (selector.per !== undefined) parts.push(`per="${selector.per}"`);
  return parts.join(' ');
}

/** "pool workers=2 chunk=64" -> { variant: 'pool', params: { workers: '2', chunk: '64' } }; values stay strings. */
export function parseCaseSelector(text: string): { variant: string; params: Record<string, string> } {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  const variant = tokens.shift();
  if (variant === undefined || variant.includes('=')) {
    throw new MeasuredSelectorError(`case="${text}" must start with the variant's name, then <param>=<value> pairs, e.g. case="pool workers=2"`);
  }
  const params: Record<string, string> = {};
  for (const token of tokens) {
    const eq = token.indexOf('=');
    if (eq <= 0 || eq === token.length - 1) {
      throw new MeasuredSelectorError(`case="${text}": '${token}' is not <param>=<value> (write e.g. case="pool workers=2")`);
    }
    params[token.slice(0, eq)] = token.slice(eq + 1);
  }
  return { variant, params };
}

/** How a case is written in a selector: "pool workers=2" (params sorted). */
function caseSelectorOf(entry: { variant: string; params: Params }): string {
  const params = Object.keys(entry.params)
    .sort()
    .map((k) => `${k}=${String(entry.params[k])}`);
  return [entry.variant, ...params].join(' ');
}

/**
 * The one entry `caseText` names: the variant and every param given must agree (values compared as text); an
 * entry whose params are exactly those given wins, else a unique partial match. Throws, listing what exists.
 */
export function findCase<T extends { variant: string; params: Params }>(entries: readonly T[], caseText: string, where: string): T {
  const wanted = parseCaseSelector(caseText);
  const matches = entries.filter(
    (e) => e.variant === wanted.variant && Object.entries(wanted.params).every(([k, v]) => k in e.params && String(e.params[k]) === v),
  );
  const exact = matches.filter((e) => Object.keys(e.params).length === Object.keys(wanted.params).length);
  if (exact.length === 1) return exact[0]!;
  if (matches.length === 1) return matches[0]!;
  const list = (xs: readonly T[]) => xs.map((e) => `"${caseSelectorOf(e)}"`).join(', ');
  if (matches.length > 1) {
    throw new MeasuredSelectorError(`case="${caseText}" matches ${matches.length} ${where}: ${list(matches)}; give every param`);
  }
  const sameVariant = entries.filter((e) => e.variant === wanted.variant);
  throw new MeasuredSelectorError(
    `case="${caseText}" is not among the ${where}` +
      (entries.length === 0 ? ' (there are none)' : `; they are: ${list(sameVariant.length > 0 ? sameVariant : entries)}`),
  );
}

/** Resolves a selector in one run. Throws MeasuredSelectorError naming the selector and what the run has. */
export function resolveMeasured(results: Results, values: AnalysisValues | null, selector: MeasuredSelector): Resolved {
  const lab = results.lab;
  const fail = (why: string): never => {
    throw new MeasuredSelectorError(`${describeSelector(lab, selector)}: ${why}`);
  };
  const requireCase = (): string => {
    if (selector.case === undefined || selector.case.trim() === '') fail(`at="${selector.at}" needs case="<variant> <param>=<value> ..."`);
    return selector.case!;
  };
  const within = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      if (error instanceof MeasuredSelectorError) return fail(error.message);
      throw error;
    }
  };
  // A median in the unit the run declares for the case: per sample, or per item with per="<item>".
  const medianOf = (c: CaseResult, what: string): Resolved => {
    const { item, itemsPerSample } = c.sample;
    const per = selector.per;
    let divide: number;
    let unitText: string;
    if (per === undefined || per === 'sample') {
      if (per === undefined && itemsPerSample !== 1) {
        fail(`${caseLabel(c)}: one sample of this case is ${itemsPerSample} ${item}s (results.json "sample"): write per="${item}" for the time per ${item}, or per="sample" for the time of a whole sample`);
      }
      divide = 1;
      unitText = itemsPerSample === 1 ? `per ${item}` : `per sample of ${itemsPerSample} ${item}s`;
    } else if (per === item) {
      divide = itemsPerSample;
      unitText = `per ${item} (a sample is ${itemsPerSample} ${item}${itemsPerSample === 1 ? '' : 's'})`;
    } else {
      return fail(`per="${per}" but the run declares the samples of ${caseLabel(c)} in ${item}s (${itemsPerSample} per sample): write per="${item}" or per="sample"`);
    }
    return { kind: 'number', value: c.summary.median / divide, unit: 'ms', ci95: [c.summary.ci95[0] / divide, c.summary.ci95[1] / divide], what: `${what}, ${unitText}` };
  };
  switch (selector.at) {
    case 'headline': {
      const h = results.headline ?? fail(`the ${lab} run has no headline speedup (its headline case failed or was not measured)`);
      return { kind: 'number', value: h.speedup, unit: 'x', ci95: [h.ci95[0], h.ci95[1]], what: `headline speedup of ${caseLabel(h)} over ${h.baseline}` };
    }
    case 'baseline': {
      const h = results.headline ?? fail(`the ${lab} run has no headline, so no headline baseline`);
      // The baseline case the headline names (baseline + baselineParams): no guessing from medians.
      const c = results.cases.find((b) => sameCase(b, { variant: h.baseline, params: h.baselineParams }));
      if (!c) return fail(`the ${lab} run has no case ${caseLabel({ variant: h.baseline, params: h.baselineParams })}, the baseline its headline names`);
      return medianOf(c, `median time of the baseline, ${caseLabel(c)}`);
    }
    case 'median': {
      const text = requireCase();
      const c = within(() => findCase(results.cases, text, `measured cases of ${lab}`));
      return medianOf(c, `median time of ${caseLabel(c)}`);
    }
    case 'speedup': {
      const text = requireCase();
      const s = within(() => findCase(results.speedups, text, `speedups of ${lab}`));
      return { kind: 'number', value: s.speedup, unit: 'x', ci95: [s.ci95[0], s.ci95[1]], what: `speedup of ${caseLabel(s)} over ${s.baseline}` };
    }
    case 'value': {
      if (selector.name === undefined || selector.name === '') fail('at="value" needs name="<key>" (a key of the run\'s analysis/values.json)');
      if (values === null) fail(`the ${lab} run has no analysis/values.json (rerun "npm run analyse -- <run folder>" with this version of the course)`);
      const v: MeasuredValue | undefined = Object.hasOwn(values!.values, selector.name!) ? values!.values[selector.name!] : undefined;
      if (v === undefined) {
        const keys = Object.keys(values!.values);
        fail(`no value "${selector.name}" in the ${lab} run's analysis/values.json; ${keys.length === 0 ? 'it has none' : `it has: ${keys.join(', ')}`}`);
      }
      return { kind: 'number', value: v!.value, unit: v!.unit, ci95: v!.ci95 ? [v!.ci95[0], v!.ci95[1]] : null, what: v!.what };
    }
    case 'machine':
      return { kind: 'text', text: machineText(results), what: `the machine of the ${lab} run` };
    default:
      return fail(`unknown at="${selector.at}"; use one of ${MEASURED_SELECTORS.join(', ')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting

/** Units that scale into each other, each with its size in the family's base unit. */
const FAMILIES: readonly (readonly [string, number])[][] = [
  [['ns', 1e-6], ['µs', 1e-3], ['ms', 1], ['s', 1e3]],
  [['B', 1], ['KiB', 1024], ['MiB', 1024 ** 2], ['GiB', 1024 ** 3]],
];
const ALIASES: Record<string, string> = { us: 'µs', 'μs': 'µs', bytes: 'B' };

function family(unit: string): (readonly [string, number])[] | null {
  return FAMILIES.find((f) => f.some(([u]) => u === (ALIASES[unit] ?? unit))) ?? null;
}

/** The value in the unit that reads best: times in ns/µs/ms/s (1 <= value < 1000), sizes in B/KiB/MiB/GiB. */
export function scaleUnit(value: number, unit: string, forced?: string): { factor: number; unit: string } {
  const canonical = ALIASES[unit] ?? unit;
  const fam = family(canonical);
  if (forced !== undefined && forced !== '') {
    const target = ALIASES[forced] ?? forced;
    if (target === canonical) return { factor: 1, unit: target };
    const from = fam?.find(([u]) => u === canonical);
    const to = fam?.find(([u]) => u === target);
    if (!from || !to) throw new MeasuredSelectorError(`unit="${forced}" cannot show a value in ${unit || 'no unit'}`);
    return { factor: from[1] / to[1], unit: target };
  }
  if (!fam) return { factor: 1, unit: canonical };
  const base = fam.find(([u]) => u === canonical)![1];
  const abs = Math.abs(value * base);
  // The largest unit the value is at least one of; zero stays in its own unit.
  let chosen = abs === 0 ? fam.find(([u]) => u === canonical)! : fam[0]!;
  if (abs !== 0) for (const entry of fam) if (abs >= entry[1]) chosen = entry;
  return { factor: base / chosen[1], unit: chosen[0] };
}

export interface FormatOptions {
  /** Significant digits, default 3. */
  digits?: number;
  /** Show the interval where there is one; default true. */
  interval?: boolean;
  /** Force a unit of the value's family: `unit="µs"` for a time. */
  unit?: string;
}

/** The text a Measured shows: "1.84× [1.72, 2.01]", "41.0 ms [40.7, 41.5]", "12.5 GFLOP/s", "45.2%". */
export function formatMeasured(resolved: Resolved, options: FormatOptions = {}): string {
  if (resolved.kind === 'text') return resolved.text;
  const digits = options.digits ?? 3;
  let { factor, unit } = scaleUnit(resolved.value, resolved.unit, options.unit);
  // Rounding can carry into the next unit (999.7 µs -> "1000 µs"): then show it in that unit ("1.00 ms").
  if (options.unit === undefined && factor !== 1 && Math.abs(Number(formatSignificant(resolved.value * factor, digits))) >= 1000) {
    const next = scaleUnit(Number(formatSignificant(resolved.value * factor, digits)) / factor, resolved.unit);
    if (next.unit !== unit) ({ factor, unit } = next);
  }
  // A count (a whole number in no unit of time or size, such as 24 requests or P = 2) is shown as it is.
  const isCount = factor === 1 && family(resolved.unit) === null && Number.isInteger(resolved.value) && (resolved.ci95 === null || resolved.ci95.every(Number.isInteger));
  const f = (v: number) => (isCount ? String(v) : formatSignificant(v * factor, digits));
  const suffix = unit === 'x' ? '×' : unit === '%' ? '%' : unit === '' ? '' : ` ${unit}`;
  const main = `${f(resolved.value)}${suffix}`;
  if (options.interval === false || resolved.ci95 === null) return main;
  return `${main} [${f(resolved.ci95[0])}, ${f(resolved.ci95[1])}]`;
}
