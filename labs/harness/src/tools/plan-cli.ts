/**
 * `npm run plan`: every lab's planned run time (plan.ts) for common node sizes, as a Markdown table for the instructor
 * guide. By default with the course machine's rates (what the guide quotes); `--here` calibrates this machine
 * first. Planned, not measured: each figure is the plan `npm run lab` would print at the start of that run.
 * `--json` prints the same tables as JSON (PlannedTables), for the site's <PlannedTimes> (built in a child process).
 * `--grade` plans graded runs instead: the graded cases twice, in run-cases.ts GRADE_FORKS processes a side (forks).
 * Exit codes: 0 ok, 2 bad input, 3 internal error.
 */
import { EXIT_OK, UsageError, runCli } from '../errors.ts';
import { labNames, loadLab, ROOT_DIR } from '../lab-registry.ts';
import { planLoadedLab, type LabPlan } from '../plan/plan-lab.ts';
import { formatDuration, COURSE_MACHINE, RUN_BUDGET_MS } from '../plan/plan.ts';
import { DEFAULT_SEED } from '../run/run-lab.ts';
import { parseCommandLine } from '../cli/command-line.ts';
import { GRADE_FORKS } from '../measure/run-cases.ts';

const USAGE = 'Usage: npm run plan [-- --cpus 2,16,64,128] [--here] [--grade] [--json]';
/** The node sizes the guide's table shows: a laptop, a small node, common big nodes. */
const TABLE_CPUS = [2, 16, 64, 128];

/** One lab's plans, full and quick, at each P; null where the lab declares no planning. */
export interface PlanRow {
  lab: string;
  plans: { p: number; full: LabPlan | null; quick: LabPlan | null }[];
}

/**
 * Plans every lab at each P with the course machine's rates (or this machine's, `here`), the solution's cases; `grade`:
 * graded runs (a lab with nothing to grade is planned as a practice run).
 */
export async function planRows(ps: number[], rates: 'here' | 'course', rootDir = ROOT_DIR, grade = false): Promise<PlanRow[]> {
  const rows: PlanRow[] = [];
  for (const name of labNames(rootDir)) {
    const lab = await loadLab(name, rootDir);
    const graded = grade && lab.grading !== undefined ? { grade: true } : {};
    const plan = (p: number, quick: boolean) => planLoadedLab(lab, { lab: name, impl: 'solution', quick, p, seed: DEFAULT_SEED, rootDir, rates, ...graded });
    rows.push({ lab: name, plans: ps.map((p) => ({ p, full: plan(p, false), quick: plan(p, true) })) });
  }
  return rows;
}

/** "2 min 10 s (41 cases; 6 of 10 rounds; 2 left out)": a plan as a table cell. */
export function planCell(plan: LabPlan | null): string {
  if (!plan) return 'not planned';
  const { fit } = plan;
  const changes = [
    `${fit.plan.cases.length} cases`,
    ...(fit.plan.sampling.rounds < fit.asked.sampling.rounds ? [`${fit.plan.sampling.rounds} of ${fit.asked.sampling.rounds} rounds`] : []),
    ...(fit.omitted.length ? [`${fit.omitted.length} left out`] : []),
  ];
  return `${formatDuration(fit.plan.totalMs)}${fit.withinBudget ? '' : ' (over budget)'} (${changes.join('; ')})`;
}

/** The tables as data (`--json`): the rates' machine, the run budgets, the columns' P and a row of cells per lab. */
export interface PlannedTables {
  machine: string;
  budgets: { full: string; quick: string };
  cpus: number[];
  rows: { lab: string; full: string[]; quick: string[] }[];
}

/** planRows' plans as PlannedTables, each cell as the Markdown table writes it (planCell). */
export function plannedTables(rows: PlanRow[], ps: number[], machine: string): PlannedTables {
  return {
    machine,
    budgets: { full: formatDuration(RUN_BUDGET_MS.full), quick: formatDuration(RUN_BUDGET_MS.quick) },
    cpus: ps,
    rows: rows.map((row) => ({ lab: row.lab, full: row.plans.map((p) => planCell(p.full)), quick: row.plans.map((p) => planCell(p.quick)) })),
  };
}

/** Two Markdown tables, full runs and quick runs: a row per lab, a column per P. */
function formatPlanTables(rows: PlanRow[]): string {
  const ps = rows[0]?.plans.map((p) => p.p) ?? [];
  const table = (which: 'full' | 'quick') => [
    `| ${which} run | ${ps.map((p) => `P = ${p}`).join(' | ')} |`,
    `| --- | ${ps.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| \`${row.lab}\` | ${row.plans.map((p) => planCell(p[which])).join(' | ')} |`),
  ];
  return [...table('full'), '', ...table('quick')].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, { cpus: { type: 'string' }, here: { type: 'boolean' }, grade: { type: 'boolean' }, json: { type: 'boolean' } }, USAGE);
  if (parsed === null) return EXIT_OK;
  const ps = parsed.values.cpus === undefined ? TABLE_CPUS : parsed.values.cpus.split(',').map((text) => Number(text.trim()));
  if (ps.some((p) => !Number.isInteger(p) || p < 1 || p > 1024)) throw new UsageError(`--cpus must list whole numbers of CPUs from 1 to 1024, e.g. 2,16,64,128; got '${parsed.values.cpus}'`);
  const rates = parsed.values.here ? 'here' : 'course';
  // The GPU lab plans its CPU "devices" (its cases do not depend on a GPU's speed here): as on the course machine.
  if (rates === 'course') process.env.CUDA_VISIBLE_DEVICES = '';
  const rows = await planRows(ps, rates, ROOT_DIR, parsed.values.grade === true);
  if (parsed.values.json) {
    process.stdout.write(`${JSON.stringify(plannedTables(rows, ps, rates === 'here' ? 'this machine' : COURSE_MACHINE))}\n`);
    return EXIT_OK;
  }
  const source = rates === 'here' ? 'rates calibrated on this machine' : `the rates of ${COURSE_MACHINE}`;
  const which = parsed.values.grade ? `graded runs (the graded cases in ${GRADE_FORKS} processes a side)` : "the solution's cases";
  process.stdout.write(`${formatPlanTables(rows)}\n\nPlanned, not measured: ${which}, from each case's work per sample and ${source}; budgets 5 min (full), 90 s (quick).\n`);
  return EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
