/**
 * The landing page in a real browser on a phone: the learning outcomes with their ids, the schedule computed from
 * the episodes, the start button, and no sideways scrolling at 390 px. Also the knowledge check's outcome tags.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import { LEARNING_OUTCOMES, outcomeAnchor } from '../src/lib/learning-outcomes.ts';
import { formatClock } from '../src/lib/schedule.ts';
import { readEpisodeFiles, scheduleOfFiles } from './support/episode-files.ts';
import { openSite, servedPage, watchErrors, type SiteUnderTest } from './support/site.ts';

/** An iPhone-sized viewport (CSS pixels), the narrowest the course is written for. */
const PHONE = { width: 390, height: 844 };

const episodes = readEpisodeFiles().filter((file) => !file.isPage);
const expected = scheduleOfFiles(episodes);

describe('the landing page on a phone', () => {
  let site: SiteUnderTest;
  let phone: BrowserContext;
  before(async () => {
    site = await openSite();
    phone = await site.browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  });
  after(async () => {
    await phone?.close();
    await site?.close();
  });

  it('shows every learning outcome with its id', async () => {
    const page = await phone.newPage();
    const errors = watchErrors(page);
    await page.goto(site.url);
    const items = page.locator('[data-learning-outcomes] li');
    assert.equal(await items.count(), LEARNING_OUTCOMES.length);
    for (const outcome of LEARNING_OUTCOMES) {
      const item = page.locator(`#${outcomeAnchor(outcome.id)}`);
      assert.ok(await item.isVisible(), `${outcome.id} is not visible`);
      const text = (await item.innerText()).replace(/\s+/g, ' ');
      assert.ok(text.startsWith(outcome.id), `${outcome.id} does not show its id: "${text}"`);
      assert.ok(text.includes(outcome.text), `${outcome.id} does not show its text: "${text}"`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows the schedule from the episodes: minutes, running clock and total, linked in teaching order', async () => {
    const page = await phone.newPage();
    await page.goto(site.url);
    const rows = await page.locator('[data-schedule] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        href: (tr.querySelector('a') as HTMLAnchorElement).href,
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? ''),
      })),
    );
    assert.deepEqual(
      rows.map((row) => row.href),
      expected.rows.map((row) => `${site.url}${row.id}/`),
    );
    assert.deepEqual(
      rows.map((row) => row.cells),
      expected.rows.map((row) => [String(row.teaching), String(row.exercises), String(row.total), formatClock(row.endsAt)]),
    );
    const total = await page.locator('[data-schedule-total] td').allInnerTexts();
    assert.deepEqual(
      total.map((cell) => cell.trim()),
      [String(expected.teaching), String(expected.exercises), String(expected.total), formatClock(expected.total)],
    );
    await page.close();
  });

  it('lists beyond the core path every deep dive, optional challenge and the homework, with minutes and working links', async () => {
    const page = await phone.newPage();
    await page.goto(site.url);
    const rows = await page.locator('[data-schedule-beyond] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => {
        const link = tr.querySelector('a') as HTMLAnchorElement;
        return {
          episode: tr.getAttribute('data-episode'),
          kind: tr.getAttribute('data-beyond'),
          title: link.textContent?.trim() ?? '',
          href: link.href,
          minutes: Number(tr.querySelector('td.num')?.textContent),
        };
      }),
    );
    const wanted = expected.rows.flatMap((row) => [
      ...(row.deepDives ?? []).map((dive) => [row.id, 'deep-dive', dive.title, dive.minutes]),
      ...(row.homework === undefined ? [] : [[row.id, 'homework', null, row.homework]]),
    ]);
    assert.deepEqual(
      rows.map((row) => [row.episode, row.kind, row.kind === 'homework' ? null : row.title, row.minutes]),
      wanted,
    );
    const totals = await page.locator('[data-schedule-deep-dives-total] td.num, [data-schedule-homework-total] td.num').allInnerTexts();
    assert.deepEqual(totals.map((cell) => Number(cell.trim())), [expected.deepDives, expected.homework]);
    // Every link lands on its episode, and a deep dive's on its section's heading.
    for (const row of rows) {
      const url = new URL(row.href);
      assert.ok(url.pathname.startsWith(new URL(site.url).pathname + row.episode), `${row.title} links to ${row.href}`);
      if (url.hash === '') continue;
      const served = await servedPage(page, row.href, decodeURIComponent(url.hash.slice(1)));
      assert.equal(served.status, 200);
      // The page typesets quotes (' -> ’); the frontmatter title keeps the ones typed.
      const straight = (text: string | null) => text?.replace(/[‘’]/g, "'").replace(/[“”]/g, '"') ?? null;
      assert.equal(straight(served.text), straight(row.title), `${row.href} has no heading "${row.title}"`);
    }
    await page.close();
  });

  it('starts with the first episode', async () => {
    const page = await phone.newPage();
    await page.goto(site.url);
    const start = page.getByRole('link', { name: /start with the first episode/i });
    assert.equal(await start.evaluate((a) => (a as HTMLAnchorElement).href), `${site.url}01-setup/`);
    await page.close();
  });

  it('has a menu at 390 px, and the instructor-view switch in it', async () => {
    const page = await phone.newPage();
    const errors = watchErrors(page);
    await page.goto(site.url, { waitUntil: 'load' });
    const menu = page.locator('button[popovertarget="starlight__sidebar"]');
    assert.ok(await menu.isVisible(), 'no menu button on the landing page at 390 px');
    const toggle = page.locator('[data-instructor-toggle]').filter({ visible: true });
    assert.equal(await toggle.count(), 0, 'the switch is in the menu, not loose on the page');
    await menu.click();
    await toggle.first().waitFor({ state: 'visible' });
    await page.getByRole('link', { name: 'About the course' }).first().waitFor({ state: 'visible' });
    await toggle.first().click();
    assert.equal(await page.evaluate(() => document.documentElement.classList.contains('instructor-view')), true);
    assert.equal(await toggle.first().getAttribute('aria-pressed'), 'true');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('keeps the results viewer\'s "Lab:" apart from its drop-down at 390 px', async () => {
    const page = await phone.newPage();
    await page.goto(`${site.url}results-viewer/`, { waitUntil: 'load' });
    const gap = await page.locator('[data-rv-lab-pick]').evaluate((label) => {
      const text = [...label.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.includes('Lab:'));
      const select = label.querySelector('select');
      if (!text || !select) return null;
      const range = document.createRange();
      range.selectNodeContents(text);
      const words = range.getBoundingClientRect();
      const box = select.getBoundingClientRect();
      // Beside it with a gap, or wrapped onto the next line: either way not glued.
      return box.top >= words.bottom - 1 ? Infinity : box.left - words.right;
    });
    assert.ok(gap !== null, 'the viewer has a "Lab:" label around its drop-down');
    assert.ok(gap >= 4, `"Lab:" is ${gap} px from its drop-down`);
    const overflow = await page.locator('[data-results-viewer]').evaluate((viewer) => {
      const right = viewer.getBoundingClientRect().right;
      return [...viewer.querySelectorAll('.rv-pick :is(input, select)')].map((c) => c.getBoundingClientRect().right - right).filter((d) => d > 0.5);
    });
    assert.deepEqual(overflow, [], 'the viewer\'s controls stay inside it on a phone');
    await page.close();
  });

  it('reads at 390 px without sideways scrolling (page, schedule and outcomes fit the screen)', async () => {
    const page = await phone.newPage();
    await page.goto(site.url, { waitUntil: 'load' });
    const widths = await page.evaluate(() => {
      const box = (selector: string) => {
        const element = document.querySelector(selector) as HTMLElement;
        const rect = element.getBoundingClientRect();
        return { left: rect.left, right: rect.right, scroll: element.scrollWidth, client: element.clientWidth };
      };
      return {
        viewport: window.innerWidth,
        document: document.documentElement.scrollWidth,
        body: document.body.scrollWidth,
        schedule: box('[data-schedule]'),
        beyond: box('[data-schedule-beyond]'),
        outcomes: box('[data-learning-outcomes]'),
      };
    });
    assert.equal(widths.viewport, PHONE.width);
    assert.ok(widths.document <= widths.viewport, `the page is ${widths.document} px wide on a ${widths.viewport} px screen`);
    assert.ok(widths.body <= widths.viewport, `the body is ${widths.body} px wide on a ${widths.viewport} px screen`);
    for (const name of ['schedule', 'beyond', 'outcomes'] as const) {
      const { left, right, scroll, client } = widths[name];
      assert.ok(left >= 0 && right <= widths.viewport, `the ${name} spans ${left}-${right} px on a ${widths.viewport} px screen`);
      assert.ok(scroll <= client, `the ${name} scrolls sideways (${scroll} px of content in ${client} px)`);
    }
    await page.close();
  });
});

describe('an unknown address', () => {
  it("answers 404 with the course's own page, linking to the landing page under the base path", async () => {
    const site = await openSite();
    try {
      const page = await site.browser.newPage();
      const response = await page.goto(`${site.url}no-such-episode/`);
      assert.equal(response?.status(), 404);
      assert.equal((await page.locator('h1').first().textContent())?.trim(), 'Page not found');
      const home = page.getByRole('link', { name: "Go to the course's first page" });
      assert.equal(await home.evaluate((a) => (a as HTMLAnchorElement).href), site.url);
      await page.close();
    } finally {
      await site.close();
    }
  });
});

describe('the knowledge check names the outcomes', () => {
  let site: SiteUnderTest;
  before(async () => {
    site = await openSite();
  });
  after(async () => {
    await site?.close();
  });

  it('shows under every question the outcomes it checks, linked to them on the landing page', async () => {
    const page = await site.browser.newPage();
    await page.goto(`${site.url}knowledge-check/`);
    const questions = await page.locator('[data-kc-question]').evaluateAll((forms) =>
      forms.map((form) => {
        const tags = form.querySelector('[data-kc-outcomes]');
        return {
          ids: tags?.getAttribute('data-kc-outcomes')?.split(' ') ?? [],
          text: tags?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
          links: [...(tags?.querySelectorAll('a') ?? [])].map((a) => (a as HTMLAnchorElement).href),
        };
      }),
    );
    assert.ok(questions.length >= 31, `${questions.length} questions on the page`);
    const known = new Set(LEARNING_OUTCOMES.map((outcome) => outcome.id));
    questions.forEach((question, i) => {
      assert.ok(question.ids.length > 0, `question ${i + 1} shows no outcome`);
      for (const id of question.ids) {
        assert.ok(known.has(id), `question ${i + 1} names unknown outcome ${id}`);
        assert.ok(question.text.includes(id), `question ${i + 1} does not show ${id}: "${question.text}"`);
        assert.ok(question.links.includes(`${site.url}#${outcomeAnchor(id)}`), `question ${i + 1} does not link ${id}`);
      }
    });
    const covered = new Set(questions.flatMap((question) => question.ids));
    assert.deepEqual([...known].filter((id) => !covered.has(id)), [], 'outcomes no question on the page checks');
    await page.close();
  });
});
