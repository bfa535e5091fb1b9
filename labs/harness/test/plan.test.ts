/**
 * A run's length on any node (issue 16): every real lab's case list, planned for P = 1 to 128 with the reference
 * machine's rates (plan.ts COURSE_MACHINE: this 2-vCPU VM, a slow per-core rate), stays within its budget after
 * the planner's reductions (full <= 5 min, quick <= 90 s), every case has an estimate, and the case count grows at
 * most with log P: cases(P) <= cases(1) + s x (log2 P + 1), s the lab's sweeps over P, counted at P = 1 as its cases
 * with one worker (each sweep's first point). Each sweep (sweep.ts: every count to 4, the powers of two, P) adds at
 * most log2 P + 1 points. The table is printed (t.diagnostic) for the instructor guide and the issue.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labNames, loadLab } from '../src/lab-registry.ts';
import { planContext, planLoadedLab } from '../src/plan/plan-lab.ts';
import { formatDuration, MIN_ROUNDS, RUN_BUDGET_MS } from '../src/plan/plan.ts';
import { DEFAULT_SEED } from '../src/run/run-lab.ts';
import { ROOT_DIR } from '../src/lab-registry.ts';

const PS = [1, 2, 4, 16, 64, 128];

/** Plans for the CPU devices whatever this machine has (no GPU probe decides the case list), and libuv's default pool. */
function withPlanningEnv(): () => void {
  const saved = { cuda: process.env.CUDA_VISIBLE_DEVICES, uv: process.env.UV_THREADPOOL_SIZE };
  process.env.CUDA_VISIBLE_DEVICES = '';
  delete process.env.UV_THREADPOOL_SIZE;
  return () => {
    for (const [name, value] of [['CUDA_VISIBLE_DEVICES', saved.cuda], ['UV_THREADPOOL_SIZE', saved.uv]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

test('every lab, planned for P = 1 to 128 at the course machine rates, stays within 5 min (full) and 90 s (quick), with log P cases', async (t) => {
  const restore = withPlanningEnv();
  t.after(restore);
  const rows = ['lab               P     run    cases  bound  planned      asked        reduction'];
  for (const name of labNames(ROOT_DIR)) {
    const lab = await loadLab(name, ROOT_DIR);
    assert.ok(lab.planning, `${name} declares planning`);
    for (const quick of [false, true]) {
      const plan = (p: number) => planLoadedLab(lab, { lab: name, impl: 'solution', quick, p, seed: DEFAULT_SEED, rootDir: ROOT_DIR, rates: 'course' })!;
      const one = planLoadedLab(lab, { lab: name, impl: 'solution', quick, p: 1, seed: DEFAULT_SEED, rootDir: ROOT_DIR, rates: 'course' })!;
      const atOne = one.fit.asked.cases.length;
      const sweeps = lab.cases(planContext({ lab: name, impl: 'solution', quick, p: 1, seed: DEFAULT_SEED, rootDir: ROOT_DIR, rates: 'course' })).filter((c) => c.workers === 1).length;
      for (const p of PS) {
        const { fit } = plan(p);
        const mode = quick ? 'quick' : 'full';
        const bound = atOne + sweeps * (p > 1 ? Math.log2(p) + 1 : 0);
        assert.deepEqual(fit.asked.unestimated, [], `${name} P=${p} ${mode}: every case has an estimate`);
        assert.ok(fit.asked.cases.length <= bound, `${name} P=${p} ${mode}: ${fit.asked.cases.length} cases, over the log P bound ${bound.toFixed(1)} (${sweeps} sweeps)`);
        assert.ok(fit.withinBudget, `${name} P=${p} ${mode}: planned ${formatDuration(fit.plan.totalMs)}, over ${formatDuration(fit.budgetMs)}`);
        assert.ok(fit.plan.totalMs <= (quick ? RUN_BUDGET_MS.quick : RUN_BUDGET_MS.full));
        assert.ok(fit.plan.sampling.rounds >= Math.min(MIN_ROUNDS, fit.asked.sampling.rounds), `${name} P=${p} ${mode}: never below ${MIN_ROUNDS} rounds`);
        const reduction = [
          ...(fit.plan.sampling.rounds < fit.asked.sampling.rounds ? [`rounds ${fit.asked.sampling.rounds} -> ${fit.plan.sampling.rounds}`] : []),
          ...(fit.omitted.length ? [`left out: ${fit.omitted.map((c) => c.label).join(', ')}`] : []),
        ].join('; ');
        rows.push(
          `${name.padEnd(17)} ${String(p).padStart(3)}   ${mode.padEnd(5)}  ${String(fit.plan.cases.length).padStart(5)}  ${String(Math.floor(bound)).padStart(5)}  ${formatDuration(fit.plan.totalMs).padEnd(11)}  ${formatDuration(fit.asked.totalMs).padEnd(11)}  ${reduction || '-'}`,
        );
      }
    }
  }
  t.diagnostic(`Planned at the reference rates (cases and time after the reduction; "asked": the lab's own sampling):\n${rows.join('\n')}`);
});
