import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCharts } from '../src/report/charts.ts';
import { formatTerminalSummary, renderReports } from '../src/report/index.ts';
import { writeRunFolder } from '../src/write/results-writer.ts';
import { ChartRenderError, renderChartPng } from '../src/report/png.ts';
import { parseResults, type Results } from '@parallel-course/core';

const FIXTURE = new URL('./fixtures/results-event-loop.json', import.meta.url);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function loadFixture(): Results {
  return parseResults(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'results-event-loop.json');
}

/** Width and height from a PNG's IHDR chunk (bytes 16..23, big-endian). */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('renderChartPng', () => {
  it('renders a PNG at twice the CSS size', async () => {
    const spec = buildCharts(loadFixture())[0];
    assert.ok(spec);
    const png = await renderChartPng(spec.config, 600, 400);
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    assert.ok(png.length > 5 * 1024, `only ${png.length} bytes`);
    assert.deepEqual(pngSize(png), { width: 1200, height: 800 });
  });

  it('does not change the configuration it is given', async () => {
    const spec = buildCharts(loadFixture())[0];
    assert.ok(spec);
    const before = JSON.stringify(spec.config);
    await renderChartPng(spec.config, 300, 200);
    assert.equal(JSON.stringify(spec.config), before);
  });

  it('names a bad size', async () => {
    const spec = buildCharts(loadFixture())[0];
    assert.ok(spec);
    await assert.rejects(renderChartPng(spec.config, 0, 400), {
      name: 'ChartRenderError',
      message: 'chart size must be whole pixels between 100 and 4000, got 0 x 400',
    });
    assert.ok(new ChartRenderError('x') instanceof Error);
  });
});

describe('renderReports, then the write stage', () => {
  let outRoot = '';
  before(async () => {
    outRoot = await mkdtemp(path.join(tmpdir(), 'report-test-'));
  });
  after(async () => {
    await rm(outRoot, { recursive: true, force: true });
  });

  it('renders report.html, report.md and charts/*.png, which the write stage puts beside results.json', async () => {
    const results = loadFixture();
    const files = await renderReports(results);
    assert.deepEqual(files.map((f) => f.relativePath), [
      'report.html', 'charts/speedup-vs-workers.png', 'charts/speedup-per-case.png', 'charts/time-distribution.png', 'report.md',
    ]);
    const written = writeRunFolder({ outRoot, lab: 'event-loop', startedAt: new Date(results.startedAt) }, results, files, () => {});
    const runDir = written.dir;
    assert.equal(written.fellBack, false);
    assert.deepEqual(JSON.parse(await readFile(path.join(runDir, 'results.json'), 'utf8')), JSON.parse(JSON.stringify(results)));

    // Every PNG is real and referenced by the Markdown; no temporary file is left behind.
    const markdown = await readFile(path.join(runDir, 'report.md'), 'utf8');
    for (const png of files.filter((f) => f.relativePath.endsWith('.png')).map((f) => path.join(runDir, f.relativePath))) {
      const bytes = await readFile(png);
      assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE, png);
      assert.ok(bytes.length > 5 * 1024, `${png}: only ${bytes.length} bytes`);
      assert.ok(markdown.includes(`](${path.relative(runDir, png)})`), `${png} is not referenced`);
    }
    const names = [...(await readdir(runDir)), ...(await readdir(path.join(runDir, 'charts')))];
    assert.deepEqual(names.filter((f) => f.includes('.tmp')), []);
    assert.match(await readFile(path.join(runDir, 'report.html'), 'utf8'), /^<!doctype html>/);
  });

  it('refuses a reporter that would write results.json or outside the run folder, while rendering, before anything is written', async () => {
    for (const [relativePath, message] of [
      ['results.json', 'the rogue reporter asked to write results.json; only the harness writes that file'],
      ['../escaped.txt', 'the rogue reporter asked to write ../escaped.txt, which is outside the run folder'],
      ['charts/../../escaped.txt', 'the rogue reporter asked to write charts/../../escaped.txt, which is outside the run folder'],
    ] as const) {
      const rogue = {
        name: 'rogue',
        async render() {
          return [
            { relativePath: 'first.txt', contents: 'rendered before the rogue file' },
            { relativePath, contents: '{}' },
          ];
        },
      };
      await assert.rejects(renderReports(loadFixture(), [rogue]), { name: 'ReportWriteError', message });
    }
    const fine = { name: 'fine', async render() { return [{ relativePath: './charts//x.png', contents: 'x' }]; } };
    assert.deepEqual((await renderReports(loadFixture(), [fine])).map((f) => f.relativePath), ['charts/x.png'], 'a path is normalised');
  });

  it('re-exports the terminal summary', () => {
    assert.match(formatTerminalSummary(loadFixture()), /^event-loop · /);
  });
});
