import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCharts } from '../src/report/charts.ts';
import { formatTerminalSummary, ReportWriteError, writeReports } from '../src/report/index.ts';
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

describe('writeReports', () => {
  let runDir = '';
  const resultsText = `${JSON.stringify(loadFixture(), null, 2)}\n`;

  before(async () => {
    runDir = await mkdtemp(path.join(tmpdir(), 'report-test-'));
    await writeFile(path.join(runDir, 'results.json'), resultsText);
  });
  after(async () => {
    await rm(runDir, { recursive: true, force: true });
  });

  it('writes report.html, report.md and charts/*.png, and leaves results.json alone', async () => {
    const resultsPath = path.join(runDir, 'results.json');
    const statBefore = await stat(resultsPath);
    const written = await writeReports(loadFixture(), runDir);

    assert.equal(written.html, path.join(runDir, 'report.html'));
    assert.equal(written.markdown, path.join(runDir, 'report.md'));
    assert.deepEqual(
      written.pngs.map((p) => path.relative(runDir, p)),
      ['charts/speedup-vs-workers.png', 'charts/speedup-per-case.png', 'charts/time-distribution.png'],
    );

    const statAfter = await stat(resultsPath);
    assert.equal(await readFile(resultsPath, 'utf8'), resultsText);
    assert.equal(statAfter.mtimeMs, statBefore.mtimeMs);
    assert.equal(statAfter.ino, statBefore.ino);

    // Every PNG is real and referenced by the Markdown; no temporary file is left behind.
    const markdown = await readFile(written.markdown, 'utf8');
    for (const png of written.pngs) {
      const bytes = await readFile(png);
      assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE, png);
      assert.ok(bytes.length > 5 * 1024, `${png}: only ${bytes.length} bytes`);
      assert.ok(markdown.includes(`](${path.relative(runDir, png)})`), `${png} is not referenced`);
    }
    const files = [...(await readdir(runDir)), ...(await readdir(path.join(runDir, 'charts')))];
    assert.deepEqual(files.filter((f) => f.endsWith('.tmp')), []);
    assert.match(await readFile(written.html, 'utf8'), /^<!doctype html>/);
  });

  it('never replaces a report that is already in the run folder', async () => {
    const before = await readFile(path.join(runDir, 'report.md'), 'utf8');
    const copy = structuredClone(loadFixture());
    copy.title = 'second rendering';
    await assert.rejects(writeReports(parseResults(copy), runDir), (error: unknown) => error instanceof ReportWriteError && /EEXIST/.test(error.message));
    assert.equal(await readFile(path.join(runDir, 'report.md'), 'utf8'), before);
  });

  it('refuses a run folder that does not exist, saying who creates it', async () => {
    const missing = path.join(runDir, 'no-such-run');
    await assert.rejects(writeReports(loadFixture(), missing), (error: unknown) => {
      assert.ok(error instanceof ReportWriteError);
      assert.equal(error.code, 'REPORT_WRITE_FAILED');
      assert.equal(
        error.message,
        `run folder ${missing} does not exist: the harness creates it (and results.json) before writing reports`,
      );
      return true;
    });
  });

  it('refuses a reporter that would overwrite results.json or write outside the run folder, before writing anything', async () => {
    const resultsPath = path.join(runDir, 'results.json');
    for (const relativePath of ['results.json', '../escaped.txt']) {
      const rogue = {
        name: 'rogue',
        async render() {
          return [
            { relativePath: 'first.txt', contents: 'rendered before the rogue file' },
            { relativePath, contents: '{}' },
          ];
        },
      };
      await assert.rejects(writeReports(loadFixture(), runDir, [rogue]), { name: 'ReportWriteError' });
    }
    assert.equal(await readFile(resultsPath, 'utf8'), resultsText);
    await assert.rejects(stat(path.join(runDir, 'first.txt')), { code: 'ENOENT' });
    await assert.rejects(stat(path.join(runDir, '..', 'escaped.txt')), { code: 'ENOENT' });
  });

  it('re-exports the terminal summary', () => {
    assert.match(formatTerminalSummary(loadFixture()), /^event-loop · /);
  });
});
