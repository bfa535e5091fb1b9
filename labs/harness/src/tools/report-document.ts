/**
 * The learner's report as a list of blocks (headings, paragraphs, lists, tables, charts, code), built once from the
 * LearnerReport and rendered by render-report.ts as Markdown and as HTML, so both say the same thing in the same order.
 * Tables and charts come from the harness's report pieces (tables.ts, charts.ts), so numbers match its own reports.
 */
import type { DataTable } from '../report/chart-spec.ts';
import { buildCharts } from '../report/charts.ts';
import { amdahlTable, correctnessTable, environmentTable, speedupsTable, timesTable } from '../report/tables.ts';
import type { LearnerReport, ReportRun } from './learner-report.ts';
import { NOTE_SECTIONS, type NoteKey } from '../write/notes.ts';
import { caseLabel, formatBracketInterval, formatPercent, formatRatio, headlineSentence, machineOneLiner } from '@parallel-course/core';

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'paragraph'; text: string; emphasis?: 'muted' | 'strong' | 'missing' }
  /** The learner's own words: Markdown they wrote, passed through to Markdown and shown as preformatted text in HTML. */
  | { kind: 'learner'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; table: DataTable }
  | { kind: 'chart'; runIndex: number; chartId: string; title: string; description: string; table: DataTable }
  | { kind: 'code'; text: string };

function learnerWords(run: ReportRun, key: NoteKey): Block {
  const text = run.notes[key];
  if (text !== null) return { kind: 'learner', text };
  const section = NOTE_SECTIONS.find((s) => s.key === key)!;
  return { kind: 'paragraph', emphasis: 'missing', text: `Not written yet: ${section.prompt} (in ${run.runDir}/notes.md)` };
}

function runTitle(run: ReportRun): string {
  return `${run.results.lab}: ${run.results.impl} run of ${run.results.startedAt}`;
}

function predictionBlocks(run: ReportRun): Block[] {
  const p = run.prediction;
  if (p === null) {
    return [{ kind: 'paragraph', emphasis: 'missing', text: 'No prediction was recorded for this run (npm run lab -- <lab> --predict 1.8 --why "...").' }];
  }
  const rows = [[formatRatio(p.speedup), `${formatRatio(p.measured)} ${formatBracketInterval(p.ci95)}`, p.verdict, `${p.relativeError > 0 ? '+' : ''}${formatPercent(p.relativeError)}`]];
  return [
    { kind: 'table', table: { headers: ['predicted speedup', 'measured [95% CI]', 'verdict', 'prediction error'], rows } },
    { kind: 'paragraph', text: `Why: ${p.why}` },
    {
      kind: 'paragraph',
      emphasis: 'muted',
      text: p.recordedBeforeRun
        ? `Recorded at ${p.recordedAt}, before the run started.`
        : `Recorded at ${p.recordedAt}, which is AFTER the run started (${run.results.startedAt}): not a prediction.`,
    },
  ];
}

function runBlocks(report: LearnerReport, run: ReportRun, index: number): Block[] {
  const r = run.results;
  const charts = buildCharts(r);
  const scaling = charts.find((c) => c.id === 'speedup-vs-workers');
  const others = charts.filter((c) => c.id !== 'speedup-vs-workers');
  const chartBlock = (c: (typeof charts)[number]): Block => ({ kind: 'chart', runIndex: index, chartId: c.id, title: c.title, description: c.description, table: c.table });
  const changes = report.comparisons.filter((c) => c.current.startedAt === r.startedAt && c.lab === r.lab);
  const times = timesTable(r);
  const baselineRows = times.rows.filter((row) => (row[0] ?? '').endsWith('[baseline]'));

  return [
    { kind: 'heading', level: 2, text: runTitle(run) },
    { kind: 'paragraph', emphasis: 'muted', text: `${r.title} · ${machineOneLiner(r.environment)} · run folder ${run.runDir}` },
    { kind: 'paragraph', emphasis: 'strong', text: r.headline ? `Headline: ${headlineSentence(r.headline)}` : 'No headline speedup was measured.' },

    { kind: 'heading', level: 3, text: 'The bottleneck and the evidence for it' },
    learnerWords(run, 'bottleneck'),
    { kind: 'list', items: [...run.bottleneckEvidence] },

    { kind: 'heading', level: 3, text: 'The baseline, in absolute times' },
    baselineRows.length > 0 ? { kind: 'table', table: { headers: times.headers, rows: baselineRows } } : { kind: 'paragraph', text: 'No baseline case was measured.' },

    { kind: 'heading', level: 3, text: 'Hypothesis and prediction' },
    learnerWords(run, 'hypothesis'),
    ...predictionBlocks(run),

    { kind: 'heading', level: 3, text: 'What changed' },
    learnerWords(run, 'whatChanged'),
    ...changes.flatMap((c): Block[] => [
      { kind: 'paragraph', text: `Against the ${c.earlier.impl} run of ${c.earlier.startedAt} (commit ${c.earlier.commit?.slice(0, 10) ?? 'unknown'} → ${c.current.commit?.slice(0, 10) ?? 'unknown'}); each variant by the ratio of its speedups over the baseline in the two runs (this run's / the earlier run's), so that a machine faster or slower in one run cancels; a verdict only where the 95% interval of that ratio lies wholly on one side of 1${c.threshold > 0 ? ` ± ${formatPercent(c.threshold)}` : ''}. The baseline's row is the machine's drift (earlier median / this median):` },
      {
        kind: 'table',
        table: {
          headers: ['case', 'ratio', '95% CI', 'verdict'],
          rows: c.cases.map((k) => [caseLabel(k), k.ratio === null ? '-' : formatRatio(k.ratio), k.ci95 === null ? '-' : formatBracketInterval(k.ci95), k.verdict === 'machine' ? 'the machine (baseline)' : k.verdict === 'no-verdict' ? `no verdict: ${k.reason ?? ''}` : k.verdict.replace(/-/g, ' ')]),
        },
      },
      ...(c.caveats.length > 0 ? [{ kind: 'list', items: c.caveats.map((t) => `caveat: ${t}`) } as Block] : []),
    ]),

    { kind: 'heading', level: 3, text: 'Correctness evidence' },
    { kind: 'paragraph', text: `Every case was compared with its expected output before it was timed; a failing case is never measured. ${r.correctness.length} cases, all passed.` },
    { kind: 'table', table: correctnessTable(r) },

    { kind: 'heading', level: 3, text: 'Speedups with 95% intervals' },
    r.speedups.length > 0 ? { kind: 'table', table: speedupsTable(r) } : { kind: 'paragraph', text: 'No speedups.' },
    { kind: 'table', table: times },

    { kind: 'heading', level: 3, text: 'Scaling: Amdahl fit and Karp-Flatt serial fraction' },
    ...(scaling ? [chartBlock(scaling)] : [{ kind: 'paragraph', text: 'This run has no worker sweep, so there is no scaling curve.' } as Block]),
    ...(r.amdahl.length > 0 ? [{ kind: 'table', table: amdahlTable(r) } as Block] : []),
    ...(run.scalingEvidence.length > 0 ? [{ kind: 'list', items: run.scalingEvidence } as Block] : []),
    ...others.map(chartBlock),

    { kind: 'heading', level: 3, text: 'Interpretation' },
    learnerWords(run, 'interpretation'),
    { kind: 'heading', level: 3, text: 'Next steps' },
    learnerWords(run, 'nextSteps'),

    { kind: 'heading', level: 3, text: 'Threats to validity' },
    { kind: 'list', items: run.threats.map((t) => t.text) },

    { kind: 'heading', level: 3, text: 'Environment' },
    { kind: 'table', table: environmentTable(r) },

    { kind: 'heading', level: 3, text: 'Reproduce' },
    { kind: 'paragraph', text: 'From a clone of the course repository:' },
    { kind: 'code', text: run.reproduce.join('\n') },
  ];
}

export function reportDocument(report: LearnerReport): Block[] {
  const labs = [...new Set(report.runs.map((r) => r.results.lab))];
  return [
    { kind: 'heading', level: 1, text: `Optimisation report: ${labs.join(', ')}` },
    { kind: 'paragraph', emphasis: 'muted', text: `Made with npm run report at ${report.generatedAt} from ${report.runs.length} run${report.runs.length === 1 ? '' : 's'}; every number below follows from the raw samples in each run's results.json (checked before this report was made).` },
    { kind: 'list', items: report.runs.map((r) => `${runTitle(r)}: ${r.results.headline ? headlineSentence(r.results.headline) : 'no headline'}`) },
    ...report.runs.flatMap((run, i) => runBlocks(report, run, i)),
  ];
}
