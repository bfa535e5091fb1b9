/**
 * What a reader of the run's results must know beside its numbers: the CPUs and topology, the plan, the lab's and the
 * supervisor's notes, oversubscription, measure groups, a grade under forced P, implausible ratios, late failures.
 */
import { caseLabel, plausibilityFlags, type RunAnalysis } from '@parallel-course/core';
import { measureGroups } from '../measure/measure.ts';
import type { SupervisedRun } from '../supervise/supervisor.ts';
import { describeTopology, topologyWarnings } from '../machine/topology.ts';
import type { DeclaredRun } from './declare.ts';
import type { RunStart } from './open.ts';

export function runNotes(start: RunStart, declared: DeclaredRun, run: SupervisedRun, measuredCases: SupervisedRun['lab']['cases'], analysis: RunAnalysis): string[] {
  const { cpus, stepWarning, topology } = start;
  const notes: string[] = [start.budget, ...(stepWarning ? [stepWarning] : []), `Topology: ${describeTopology(topology)}.`, ...(declared.plan ? [declared.plan.note] : []), ...run.lab.notes, ...run.notes];
  notes.push(...topologyWarnings(topology, Math.max(0, ...measuredCases.map((c) => c.workers ?? 0))));
  if (analysis.cases.some((c) => c.oversubscribed)) {
    notes.push(`Cases with more workers than available CPUs (${cpus.available}) are flagged oversubscribed: their speedup is limited by time-slicing.`);
  }
  const groupNames = measureGroups(measuredCases.map((c) => c.measureGroup)).map(
    (members) => measuredCases[members[0] as number]?.measureGroup ?? 'the other cases',
  );
  if (groupNames.length > 1) {
    notes.push(
      `Measured in ${groupNames.length} groups, one after another (${groupNames.join(', then ')}), with a full garbage ` +
        'collection between them; cases are interleaved within a group only.',
    );
  }
  const grade = analysis.grade;
  if (grade && (cpus.forced || grade.oversubscribed)) {
    notes.push(`The grade was measured with ${cpus.forced ? `P forced to ${cpus.p}` : ''}${cpus.forced && grade.oversubscribed ? ' and ' : ''}${grade.oversubscribed ? 'graded cases oversubscribed' : ''}: the learner's and the solution's code shared the same CPUs, but the ratio is not what the node would give.`);
  }
  // Ratios no machine gives: flagged in the results and every report (plausibility.ts); such a grade does not pass.
  for (const flag of plausibilityFlags({ cpus, speedups: analysis.speedups, grade })) notes.push(`Implausible, not a measurement: ${flag.message}.`);
  const failedWhileMeasured = run.correctness.filter((e) => e.failedAt && e.failedAt.stage !== 'check' && e.failedAt.stage !== 'setup');
  if (failedWhileMeasured.length > 0) {
    notes.push(`${failedWhileMeasured.length} case(s) failed after passing the check and are not charted: ${failedWhileMeasured.map((e) => caseLabel(e)).join(', ')}.`);
  }
  return notes;
}
