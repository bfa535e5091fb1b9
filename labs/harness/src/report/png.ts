/**
 * PNG rendering of a chart configuration in Node: chart.js drawing on an @napi-rs/canvas canvas (prebuilt binary,
 * no install script; chartjs-node-canvas does not install here). chart.js picks its DOM-free platform in Node.
 */
import { createCanvas } from '@napi-rs/canvas';
import { Chart, registerables, type ChartConfiguration, type Plugin } from 'chart.js';
import type { ChartConfig } from './chart-spec.ts';
import { ChartRenderError } from '../errors.ts';

export { ChartRenderError };

Chart.register(...registerables);

/** Pixel density of the PNG: 2 keeps text sharp on high-density screens and when the image is scaled down. */
const DEVICE_PIXEL_RATIO = 2;

/** Text and grid colours for a white background (chart.js's defaults assume a page behind the canvas). */
const TEXT_COLOUR = '#333333';
const GRID_COLOUR = 'rgba(0, 0, 0, 0.12)';

/** Fills the canvas white before chart.js draws, so the PNG is readable in dark viewers too. */
const whiteBackground: Plugin = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

/**
 * Renders `config` to a PNG of `width` x `height` CSS pixels (the file is twice that in each direction).
 * The configuration is deep-copied, so the caller's object is not changed by chart.js.
 */
export async function renderChartPng(config: ChartConfig, width: number, height: number): Promise<Buffer> {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 100 || height < 100 || width > 4000 || height > 4000) {
    throw new ChartRenderError(`chart size must be whole pixels between 100 and 4000, got ${width} x ${height}`);
  }
  const copy = structuredClone(config);
  // chart.js takes the CSS size from the canvas, then resizes the canvas to size x devicePixelRatio itself.
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  const chartConfig = {
    ...copy,
    options: {
      ...copy.options,
      responsive: false,
      animation: false,
      devicePixelRatio: DEVICE_PIXEL_RATIO,
      color: TEXT_COLOUR,
      borderColor: GRID_COLOUR,
    },
    plugins: [whiteBackground],
  } as unknown as ChartConfiguration;

  let chart: Chart | undefined;
  try {
    // chart.js types want a DOM canvas context; the @napi-rs/canvas context implements the same 2D API.
    chart = new Chart(context as unknown as CanvasRenderingContext2D, chartConfig);
    return await canvas.encode('png');
  } catch (error) {
    throw new ChartRenderError(`could not render the chart "${chartTitle(config)}": ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    chart?.destroy();
  }
}

function chartTitle(config: ChartConfig): string {
  const plugins = config.options['plugins'] as { title?: { text?: unknown } } | undefined;
  return typeof plugins?.title?.text === 'string' ? plugins.title.text : config.type;
}
