/**
 * The faulty fixture lab with an output over the harness's bound (2^20 doubles, 8 MiB): entry p of the output on
 * input xs is p + xs[0]. Its baseline 'loop' and a second right variant 'steady' are the lab's; 'learner' is
 * exercises/faulty/faulty.ts's sumSquares. With `lyingRunner`, the comparator says every output is right in the
 * runner's process (a runner whose checks learner code has subverted): only the judge's checks count.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** The output's length, in elements. */
export const LARGE_LENGTH = 2 ** 20;

/** Writes the large-output lab and `learner` (the source of exercises/faulty/faulty.ts) into a faults-root copy. */
export function writeLargeLab(root: string, learner: string, { lyingRunner }: { lyingRunner: boolean }): void {
  writeFileSync(
    path.join(root, 'labs', 'faulty', 'src', 'lab.ts'),
    `import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CaseDefinition, type LabDefinition, withinTolerance } from '@parallel-course/harness';
const IN_RUNNER = (process.argv[1] ?? '').endsWith('run-child.ts');
const LENGTH = ${LARGE_LENGTH};
type Input = Float64Array;
type Output = Float64Array;
const right = (xs: Input) => Float64Array.from({ length: LENGTH }, (_, p) => p + xs[0]!);
function variant(name: string, run: (xs: Input) => Output | Promise<Output>): CaseDefinition<Input, Output> {
  return { variant: name, params: {}, async setup() { return { run, teardown() {} }; } };
}
const lab: LabDefinition<Input, Output> = {
  name: 'faulty', title: 'Faulty lab (large outputs)', summary: 'large outputs', episode: 'episodes/none.mdx',
  learnerFiles: [{ file: 'faulty.ts', exports: ['sumSquares'] }],
  variants: [
    { name: 'loop', description: 'the baseline', source: 'labs/faulty/src/lab.ts' },
    { name: 'steady', description: 'a second correct variant', source: 'labs/faulty/src/lab.ts' },
    { name: 'learner', description: "the learner's code", source: '<impl>/faulty.ts: sumSquares' },
  ],
  baseline: 'loop', sweeps: [], headline: { variant: 'steady', params: {} }, inputParams: [],
  inputs: () => ({ check: [Float64Array.of(1)], measure: Float64Array.of(2) }),
  expected: right,
  comparator: ${lyingRunner ? "IN_RUNNER ? { description: 'lies in the runner', compare: () => ({ equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: 0 }) } : " : ''}withinTolerance({ abs: 0, rel: 0 }),
  outputLength: () => LENGTH,
  expectedAtPositions: (xs, positions) => Float64Array.from(positions, (p) => p + xs[0]!),
  workPerSample: () => ({ amount: LENGTH, unit: 'elements' }),
  cases(ctx) {
    return [
      variant('loop', right),
      variant('learner', async (xs) => (await import(pathToFileURL(path.join(ctx.implDir, 'faulty.ts')).href)).sumSquares(xs)),
      variant('steady', right),
    ];
  },
  sampling: { quick: { warmupSamples: 1, rounds: 2, samplesPerRound: 1 }, full: { warmupSamples: 1, rounds: 2, samplesPerRound: 1 } },
};
export default lab;
`,
  );
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), learner);
}
