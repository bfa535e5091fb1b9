/**
 * What `<Measured>` (site/src/components/Measured.astro) renders, as a pure function of the course's runs: the text,
 * its tooltip and whether it fell back to the reference (issue 20). A selector that does not resolve in the
 * reference run fails the build, naming the page and the selector; one that does not resolve in an instructor's run
 * (COURSE_RUNS) falls back to the reference's value with a visible marker.
 */
import { describeSelector, formatMeasured, type MeasuredSelector, MeasuredSelectorError, type Resolved, resolveMeasured } from '@parallel-course/harness/site.ts';
import { courseRun, describeRun, type CourseRun, type CourseRuns } from './course-runs.ts';
import { sweepAxis, type SweepAxis } from '@parallel-course/core';

export interface MeasuredProps extends MeasuredSelector {
  run: string;
  digits?: number | undefined;
  interval?: boolean | undefined;
  unit?: string | undefined;
}

export interface MeasuredRender {
  text: string;
  /** The tooltip: what it is, the lab, the run's date, the machine, reference or instructor's run. */
  title: string;
  /** The run the value came from. */
  run: CourseRun;
  /** The value is the reference's because the selector did not resolve in the instructor's run (or the lab fell back). */
  fellBack: boolean;
  resolved: Resolved;
}

/** Thrown for a selector that resolves nowhere: the build stops with this message. */
export class MeasuredBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MeasuredBuildError';
  }
}

/** The page a component is on, for build errors: the episode's file, else its id, else the URL's path. */
export function pageOf(locals: unknown, url: URL): string {
  const entry = (locals as { starlightRoute?: { entry?: { filePath?: string; id?: string } } }).starlightRoute?.entry;
  return entry?.filePath ?? entry?.id ?? url.pathname;
}

/** The run of `lab` the site shows, or a MeasuredBuildError naming the page and the tag. */
function runFor(runs: CourseRuns, lab: string, page: string, tag: string): CourseRun {
  try {
    return courseRun(runs, lab);
  } catch (error) {
    throw new MeasuredBuildError(`${page}: ${tag}: ${(error as Error).message}`);
  }
}

function selectorOf(props: MeasuredProps): MeasuredSelector {
  return { at: props.at, case: props.case, name: props.name, per: props.per };
}

/** Resolves `props` in `runs`; `page` names the episode for the build error. */
export function renderMeasured(runs: CourseRuns, props: MeasuredProps, page: string): MeasuredRender {
  if (typeof props.run !== 'string' || props.run === '') {
    throw new MeasuredBuildError(`${page}: <Measured> needs run="<lab>" (and at="headline|baseline|median|speedup|value|machine")`);
  }
  const selector = selectorOf(props);
  const run = runFor(runs, props.run, page, `<Measured ${describeSelector(props.run, selector)} />`);
  const attempt = (r: CourseRun): Resolved => resolveMeasured(r.results, r.values, selector);
  let resolved: Resolved;
  let used = run;
  let fellBack = run.fellBack;
  let why = run.fellBack ? (run.fellBackReason ?? 'no run of this lab in COURSE_RUNS') : '';
  try {
    resolved = attempt(run);
  } catch (error) {
    if (!(error instanceof MeasuredSelectorError)) throw error;
    const reference = runs.reference.get(props.run);
    if (run.source === 'reference' || !reference) {
      throw new MeasuredBuildError(`${page}: <Measured ${describeSelector(props.run, selector)} /> does not resolve in the ${run.source === 'reference' ? 'reference' : "instructor's"} run ${run.dir}: ${error.message}`);
    }
    try {
      resolved = attempt(reference);
    } catch (refError) {
      throw new MeasuredBuildError(`${page}: <Measured ${describeSelector(props.run, selector)} /> resolves neither in ${run.dir} nor in the reference run ${reference.dir}: ${(refError as Error).message}`);
    }
    used = reference;
    fellBack = true;
    why = `not in the instructor's run (${error.message})`;
  }
  let text: string;
  try {
    text = formatMeasured(resolved, { digits: props.digits, interval: props.interval, unit: props.unit });
  } catch (error) {
    throw new MeasuredBuildError(`${page}: <Measured ${describeSelector(props.run, selector)} />: ${(error as Error).message}`);
  }
  const interval = resolved.kind === 'number' && resolved.ci95 !== null && props.interval !== false ? ' (in brackets: its 95% interval)' : '';
  const title = [
    `${resolved.what}${interval}`,
    describeRun(used),
    ...(fellBack ? [`Reference value: ${why}`] : []),
  ].join('\n');
  return { text, title, run: used, fellBack, resolved };
}

/** The labs an episode's source quotes: every run="..." of a Measured, MeasuredTable or SpeedupChart tag, in order. */
export function labsQuoted(source: string): string[] {
  const labs: string[] = [];
  for (const match of source.matchAll(/<(?:Measured|MeasuredTable|SpeedupChart)\b[^>]*?\brun=(?:"([^"]+)"|'([^']+)')/g)) {
    const lab = match[1] ?? match[2];
    if (lab && !labs.includes(lab)) labs.push(lab);
  }
  return labs;
}

/** A table of a run's analysis/values.json, ready to render: every cell as text with its tooltip. */
export interface TableRender {
  caption: string;
  columns: string[];
  rows: { text: string; title: string | null }[][];
  run: CourseRun;
  fellBack: boolean;
}

/** Resolves `<MeasuredTable run table />`: the table from the run shown, else the reference's (marked), else a build error. */
export function renderTable(runs: CourseRuns, props: { run: string; table: string; digits?: number | undefined; interval?: boolean | undefined }, page: string): TableRender {
  const tag = `<MeasuredTable run="${props.run}" table="${props.table}" />`;
  const run = runFor(runs, props.run, page, tag);
  const tableOf = (r: CourseRun) => (r.values && Object.hasOwn(r.values.tables, props.table) ? r.values.tables[props.table] : undefined);
  let used = run;
  let table = tableOf(run);
  let fellBack = run.fellBack;
  if (!table) {
    const reference = runs.reference.get(props.run);
    const refTable = reference ? tableOf(reference) : undefined;
    if (run.source === 'reference' || !reference || !refTable) {
      const keys = Object.keys((reference ?? run).values?.tables ?? {});
      throw new MeasuredBuildError(
        `${page}: ${tag}: no table "${props.table}" in the ${props.run} run's analysis/values.json (${run.dir}); ${keys.length === 0 ? 'it has none' : `it has: ${keys.join(', ')}`}`,
      );
    }
    used = reference;
    table = refTable;
    fellBack = true;
  }
  const source = describeRun(used);
  const rows = table.rows.map((row) =>
    row.map((cell) => {
      if (typeof cell === 'string') return { text: cell, title: null };
      const resolved: Resolved = { kind: 'number', value: cell.value, unit: cell.unit, ci95: cell.ci95 ? [cell.ci95[0], cell.ci95[1]] : null, what: cell.what };
      return { text: formatMeasured(resolved, { digits: props.digits, interval: props.interval }), title: `${cell.what}\n${source}` };
    }),
  );
  return { caption: table.caption, columns: table.columns, rows, run: used, fellBack };
}

/** The points of a SpeedupChart: one variant's speedups against one numeric param, sorted by it. */
export interface ChartRender {
  lab: string;
  variant: string;
  param: string;
  baseline: string;
  points: { x: number; speedup: number; low: number; high: number; oversubscribed: boolean }[];
  /** The x axis the core chooses for these values (log2 for powers of two). */
  axis: SweepAxis;
  source: string;
  run: CourseRun;
  fellBack: boolean;
}

/** Resolves `<SpeedupChart run variant param />` from results.speedups; a build error when the variant has no such points. */
export function renderChart(runs: CourseRuns, props: { run: string; variant: string; param: string; where?: string | undefined }, page: string): ChartRender {
  const tag = `<SpeedupChart run="${props.run}" variant="${props.variant}" param="${props.param}"${props.where ? ` where="${props.where}"` : ''} />`;
  // where="workers=2 size=512": the other params held fixed (compared as text), so one line is one sweep.
  const fixed: Record<string, string> = {};
  for (const token of (props.where ?? '').trim().split(/\s+/).filter(Boolean)) {
    const eq = token.indexOf('=');
    if (eq <= 0) throw new MeasuredBuildError(`${page}: ${tag}: where="${props.where}": '${token}' is not <param>=<value>`);
    fixed[token.slice(0, eq)] = token.slice(eq + 1);
  }
  const run = runFor(runs, props.run, page, tag);
  // Only a sweep the lab declares (results.json `sweeps`) is charted: the chart then means what the lab says it varies.
  const declared = run.results.sweeps.filter((s) => s.param === props.param && s.variants.includes(props.variant));
  if (run.results.sweeps.length > 0 && declared.length === 0) {
    const list = run.results.sweeps.map((s) => `param="${s.param}" for ${s.variants.join(', ')}`).join('; ');
    throw new MeasuredBuildError(`${page}: ${tag}: the ${props.run} lab declares no sweep of "${props.param}" for "${props.variant}"; its sweeps are: ${list}`);
  }
  const pointsOf = (r: CourseRun) =>
    r.results.speedups
      .filter(
        (s) =>
          s.variant === props.variant &&
          props.param in s.params &&
          Number.isFinite(Number(s.params[props.param])) &&
          Object.entries(fixed).every(([k, v]) => String(s.params[k]) === v),
      )
      .map((s) => ({ x: Number(s.params[props.param]), speedup: s.speedup, low: s.ci95[0], high: s.ci95[1], oversubscribed: s.oversubscribed }))
      .sort((a, b) => a.x - b.x);
  let used = run;
  let points = pointsOf(run);
  let fellBack = run.fellBack;
  if (points.length === 1) throw new MeasuredBuildError(`${page}: ${tag}: one point is not a curve; hold fewer params fixed with where="..." or quote the value with <Measured>`);
  if (points.length === 0) {
    const reference = runs.reference.get(props.run);
    const refPoints = reference ? pointsOf(reference) : [];
    if (run.source === 'reference' || !reference || refPoints.length === 0) {
      const variants = [...new Set(run.results.speedups.map((s) => `${s.variant} (${Object.keys(s.params).join(', ') || 'no params'})`))];
      throw new MeasuredBuildError(`${page}: ${tag}: the ${props.run} run has no speedups of "${props.variant}" with a numeric "${props.param}"; it has: ${variants.join('; ')}`);
    }
    used = reference;
    points = refPoints;
    fellBack = true;
  }
  return { lab: props.run, variant: props.variant, param: props.param, baseline: used.results.baseline, points, axis: sweepAxis(points.map((p) => p.x)), source: describeRun(used), run: used, fellBack };
}
