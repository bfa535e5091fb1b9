/**
 * `@parallel-course/harness`: the labs' API, what a lab package imports to define itself (src/lab.ts and what it
 * loads), plan its cases, check their outputs and analyse its runs. It is loaded by the judge's process and by the
 * runner that runs the lab (both load the core anyway), never the judge's own stages: no run/, supervise/ or measure/
 * module, no tools/ (public-entry.test.ts follows this file's imports and fails on one).
 * The three other entries, each for one kind of importer:
 * - `./learner.ts`: learner code and the threads and processes that run it (light: no core), re-exported here whole;
 * - `./site.ts`: the site's build-time readers (the run folders, `<Measured>`);
 * - `./testing.ts`: the tests' helpers, `runLab` and the measure stage among them.
 */
import type { ChartConfig } from './report/chart-spec.ts';

export * from './learner.ts';
export * from './lab-definition.ts';
export * from './comparators.ts';
// Reading a variant's property evidence in the judge (CaseDefinition.judgeProperty).
export * from './property-evidence.ts';
export { labNames, loadLab, ROOT_DIR } from './lab-registry.ts';
// Planning: calibrating a call, the rate of a calibrated call, a sweep of worker counts.
export { parallelMs, rateOf, timePerCall } from './plan/calibration.ts';
export * from './plan/sweep.ts';
// The machine: cache sizes, bounded external commands, WebGPU adapters.
export { currentTopology, type CacheInfo, type Topology } from './machine/topology.ts';
export { describeProbeFailure, oneLine, runProbe, runProbeSync, type ProbeOptions, type ProbeResult } from './machine/probe.ts';
export * from './machine/webgpu-adapters.ts';
// Writing a file whole or not at all (gpu-batching's model file).
export { writeFileAtomic } from './write/results-writer.ts';
// A lab's own analysis: its charts (drawn with the reports' palette) and the doctor's findings.
export { GUIDE_GREY, PALETTE, type ChartConfig, type ChartDataset, type ChartPoint, type ChartSpec } from './report/chart-spec.ts';
export type { Finding } from './tools/doctor.ts';

/**
 * A chart as a PNG image (report/png.ts), `width` x `height` pixels. Loaded on the first call, so @napi-rs/canvas and
 * chart.js stay out of the runner that loads a lab's definition; only a lab's analysis draws.
 */
export async function renderChartPng(config: ChartConfig, width: number, height: number): Promise<Buffer> {
  return (await import('./report/png.ts')).renderChartPng(config, width, height);
}
