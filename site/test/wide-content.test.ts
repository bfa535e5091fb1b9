/**
 * Wide tables and figures on the course's pages (issue 47): at a phone's 390 px and a desktop's 1280 px, no measured
 * table makes the text's column scroll sideways (it lays out as blocks per row when the grid does not fit) and its
 * caption is visible whole; a run figure's smallest label stays readable. Measured in the browser: each table's width
 * against its column's, and the rendered size of the SVG's text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { builtPages, openSite, watchErrors, type SiteUnderTest } from './support/site.ts';

const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];
/** The smallest text a figure may render, in CSS px: a label below 9 px cannot be read on a phone. */
const MIN_FIGURE_TEXT_PX = 9;

interface TableMeasure {
  caption: string;
  layout: string;
  tableWidth: number;
  columnWidth: number;
  captionCut: boolean;
  scrolls: boolean;
}

/** Every measured table on the page: its width against its column's, and whether its caption fits. */
async function measureTables(page: Page): Promise<TableMeasure[]> {
  return page.locator('[data-measured-table]').evaluateAll((figures) =>
    figures.map((f) => {
      const figure = f as HTMLElement;
      const table = figure.querySelector('table') as HTMLTableElement;
      const caption = figure.querySelector('caption') as HTMLElement;
      const column = (figure.closest('.sl-markdown-content') ?? figure.parentElement) as HTMLElement;
      const box = caption.getBoundingClientRect();
      const view = figure.getBoundingClientRect();
      return {
        caption: (caption.textContent ?? '').trim().slice(0, 60),
        layout: figure.dataset.layout ?? '',
        tableWidth: table.getBoundingClientRect().width,
        columnWidth: column.getBoundingClientRect().width,
        captionCut: box.right > view.right + 1 || box.left < view.left - 1,
        scrolls: figure.scrollWidth > figure.clientWidth + 1,
      };
    }),
  );
}

/** The smallest font a run figure's SVG renders at, in CSS px: its text's font size times the image's scale. */
async function smallestFigureText(page: Page): Promise<{ src: string; px: number }[]> {
  // The image's width is its box's (CSS width: 100%), loaded or not: a lazy image below the fold never loads here.
  return page.locator('[data-run-figure] img').evaluateAll((images) =>
      images.map((i) => {
        const img = i as HTMLImageElement;
        const svg = new DOMParser().parseFromString(atob(img.src.split(',')[1] ?? ''), 'image/svg+xml').documentElement;
        const viewBox = (svg.getAttribute('viewBox') ?? '').split(/[\s,]+/).map(Number);
        const width = viewBox[2] || Number(svg.getAttribute('width'));
        const sizes = [...svg.querySelectorAll('text')].map((t) => Number((t.getAttribute('font-size') ?? (t.closest('[font-size]')?.getAttribute('font-size') ?? '16')).replace('px', '')));
        return { src: img.alt.slice(0, 40), px: (Math.min(...sizes) * img.getBoundingClientRect().width) / width };
      }),
  );
}

describe('wide tables and figures at 390 and 1280 px', () => {
  let site: SiteUnderTest;
  before(async () => {
    site = await openSite();
  });
  after(async () => {
    await site?.close();
  });
  const pages = builtPages();

  for (const viewport of VIEWPORTS) {
    it(`no measured table scrolls its column sideways, every caption whole, figure labels readable (${viewport.name}, ${viewport.width} px)`, async () => {
      const context = await site.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      const problems: string[] = [];
      let tables = 0;
      let figures = 0;
      for (const path of pages) {
        const page = await context.newPage();
        const errors = watchErrors(page);
        await page.goto(`${site.url}${path}`);
        if ((await page.locator('[data-measured-table], [data-run-figure]').count()) === 0) {
          await page.close();
          continue;
        }
        for (const t of await measureTables(page)) {
          tables++;
          if (t.scrolls || t.tableWidth > t.columnWidth + 1) problems.push(`${path}: table "${t.caption}" is ${Math.round(t.tableWidth)} px in a ${Math.round(t.columnWidth)} px column (${t.layout})`);
          if (t.captionCut) problems.push(`${path}: the caption of "${t.caption}" is cut`);
        }
        for (const f of await smallestFigureText(page)) {
          figures++;
          if (f.px < MIN_FIGURE_TEXT_PX) problems.push(`${path}: figure "${f.src}" renders text at ${f.px.toFixed(1)} px`);
        }
        assert.deepEqual(errors, [], path);
        await page.close();
      }
      await context.close();
      assert.ok(tables >= 2 && figures >= 1, `measured ${tables} tables and ${figures} figures: the episodes' tables were not found`);
      assert.deepEqual(problems, []);
    });
  }
});
