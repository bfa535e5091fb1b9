/**
 * The decision chart (DecisionChart.astro) in a real browser, where the course shows it: episode 10 and the landing
 * page. It renders, has an accessible name and description, asks its questions in the course's order (a library or
 * built-in, then the serial code, before any parallel remedy: 03's decision guide, 10's "Optimise the serial code
 * first"), every link reaches an episode (a section link reaches its heading), a keyboard reaches the links and
 * follows one, no text spills out of its box, and at 390 px the chart fits the screen at full size.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, servedPage, watchErrors, type SiteUnderTest } from './support/site.ts';

const PAGES = ['10-choosing/', ''];
const PHONE = { width: 390, height: 844 };

let site: SiteUnderTest;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

describe('the decision chart', () => {
  for (const path of PAGES) {
    it(`renders on "${path || 'the landing page'}" with an accessible name and description`, async () => {
      const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = watchErrors(page);
      await page.goto(site.url + path);
      const chart = page.getByRole('group', { name: /^Decision chart: which technique to try first/ });
      assert.equal(await chart.count(), 1);
      assert.ok(await chart.isVisible());
      const box = await chart.boundingBox();
      assert.ok(box && box.width > 300 && box.height > 600, `the chart is ${JSON.stringify(box)}`);
      const description = await chart.evaluate((svg) => document.getElementById(svg.getAttribute('aria-describedby') ?? '')?.textContent ?? '');
      assert.match(description, /Start from a measurement/);
      // Real text, in reading order: the seven questions, each followed by its exit.
      const text = (await chart.evaluate((svg) => svg.textContent ?? '')).replace(/\s+/g, ' ');
      for (const phrase of ['built-in', 'serial code', 'waiting on I/O', 'independent pieces', 'hand-off', 'memory-bound', 'need a GPU']) {
        assert.ok(text.includes(phrase), `the chart has no text "${phrase}"`);
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  it('asks about a library and the serial code before any parallel remedy, on every path', async () => {
    const page = await site.browser.newPage();
    await page.goto(site.url + PAGES[0]);
    const boxes = await page.locator('[data-decision-chart-svg]').evaluate((svg) =>
      [...svg.querySelectorAll('[data-box]')].map((box) => ({
        box: box.getAttribute('data-box') ?? '',
        remedy: box.getAttribute('data-remedy'),
        text: (box.textContent ?? '').replace(/\s+/g, ' ').trim(),
      })),
    );
    // The questions in the order the learner meets them, each named by a phrase only it has.
    const ORDER = ['library or a built-in', 'serial code', 'waiting on I/O', 'independent pieces', 'hand-off', 'memory-bound', 'need a GPU'];
    const questions = boxes.filter((b) => b.box.startsWith('question-'));
    const asked = questions.map((q) => ORDER.filter((phrase) => q.text.includes(phrase)).join(' + ') || q.text);
    assert.deepEqual(asked, ORDER);
    // The serial question asks about the profile, the algorithm and the data layout, and its exit says what to do.
    const serial = questions[1]!;
    for (const word of ['profile', 'algorithm', 'data layout']) assert.ok(serial.text.includes(word), `the serial question lacks "${word}": ${serial.text}`);
    // Every way out of the chain, in reading order: each question's exit, then the pool at the bottom. The library
    // and serial exits come first; every parallel remedy (async I/O, a task graph, chunks, more cores, a GPU, the
    // pool) after both, so no path reaches one without passing the serial question.
    const exits = boxes.filter((b) => b.box.startsWith('exit-') || b.box === 'finish');
    assert.equal(exits.length, questions.length + 1);
    const library = exits.findIndex((e) => /^use it/i.test(e.text));
    const serialExit = exits.findIndex((e) => /optimise it first/i.test(e.text));
    assert.deepEqual([library, serialExit], [0, 1], 'the library exit and then the serial one come first');
    assert.deepEqual([exits[0]!.remedy, exits[1]!.remedy], ['library', 'serial']);
    const parallel = exits.filter((e, i) => i !== library && i !== serialExit && /pool|async|task graph|chunks|more cores|GPU/i.test(e.text));
    assert.ok(parallel.length >= 6, `only ${parallel.length} parallel remedies: ${parallel.map((e) => e.box).join(', ')}`);
    for (const remedy of parallel) {
      assert.equal(remedy.remedy, 'parallel', `${remedy.box} ("${remedy.text.slice(0, 40)}") is not marked as a parallel remedy`);
      assert.ok(exits.indexOf(remedy) > serialExit, `${remedy.box} ("${remedy.text.slice(0, 40)}") comes before the serial question's exit`);
    }
    assert.deepEqual(exits.slice(2).map((e) => e.remedy), exits.slice(2).map(() => 'parallel'));
    await page.close();
  });

  it('links every exit to an episode that exists, a section link to its heading', async () => {
    const page = await site.browser.newPage();
    await page.goto(site.url + PAGES[0]);
    const links = page.locator('[data-decision-chart-svg]').getByRole('link');
    const hrefs = await links.evaluateAll((as) => as.map((a) => new URL(a.getAttribute('href') ?? '', location.href).href));
    assert.ok(hrefs.length >= 10, `${hrefs.length} links in the chart`);
    for (const lab of ['event-loop', 'task-granularity', 'native-kernel', 'gpu-batching']) {
      assert.ok((await links.allTextContents()).some((name) => name.includes(lab)), `no link names the lab ${lab}`);
    }
    for (const href of new Set(hrefs)) {
      assert.ok(href.startsWith(site.url), `${href} leaves the site's base path ${site.url}`);
      const hash = decodeURIComponent(new URL(href).hash.slice(1));
      const served = await servedPage(page, href, hash);
      assert.equal(served.status, 200, `${href} answers ${served.status}`);
      if (hash) assert.ok(served.text !== null, `${href}: no element #${hash}`);
      else assert.ok((served.text ?? '').length > 0, `${href}: no h1`);
    }
    await page.close();
  });

  it('is reachable and usable with the keyboard alone', async () => {
    const page = await site.browser.newPage();
    await page.goto(site.url + PAGES[0]);
    let reached = '';
    for (let tab = 0; tab < 200 && reached === ''; tab++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => {
        const active = document.activeElement;
        return active?.closest('[data-decision-chart-svg]') ? (active.getAttribute('href') ?? '') : '';
      });
    }
    assert.ok(reached !== '', 'Tab never reached a link inside the chart');
    const expected = new URL(reached, page.url()).href;
    await Promise.all([page.waitForURL(expected), page.keyboard.press('Enter')]);
    assert.equal(page.url(), expected);
    await page.close();
  });

  it('keeps every text inside its box', async () => {
    const page = await site.browser.newPage();
    await page.goto(site.url + PAGES[0]);
    const spills = await page.locator('[data-decision-chart-svg]').evaluate((svg) => {
      const problems: string[] = [];
      for (const group of svg.querySelectorAll('[data-box]')) {
        const rect = (group.querySelector('rect') as SVGRectElement).getBBox();
        for (const text of group.querySelectorAll('text')) {
          const b = (text as SVGTextElement).getBBox();
          if (b.x < rect.x || b.y < rect.y || b.x + b.width > rect.x + rect.width || b.y + b.height > rect.y + rect.height) {
            problems.push(`${group.getAttribute('data-box')}: "${text.textContent?.trim().slice(0, 40)}" spills out of its box`);
          }
        }
      }
      return problems;
    });
    assert.deepEqual(spills, []);
    await page.close();
  });

  it('fits a 390 px phone at full size, without sideways scrolling', async () => {
    const phone = await site.browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    for (const path of PAGES) {
      const page = await phone.newPage();
      await page.goto(site.url + path, { waitUntil: 'load' });
      const fit = await page.locator('[data-decision-chart-svg]').evaluate((svg) => {
        const box = svg.getBoundingClientRect();
        const viewBoxWidth = (svg as SVGSVGElement).viewBox.baseVal.width;
        return { left: box.left, right: box.right, scale: box.width / viewBoxWidth, page: document.documentElement.scrollWidth };
      });
      assert.ok(fit.left >= 0 && fit.right <= PHONE.width, `the chart spans ${fit.left}-${fit.right} px on a ${PHONE.width} px screen`);
      assert.ok(fit.page <= PHONE.width, `the page is ${fit.page} px wide`);
      // Drawn for this width: text at 12-13 units stays at least 11 px.
      assert.ok(fit.scale >= 0.9, `the chart is drawn at ${fit.scale.toFixed(2)} of its size`);
      await page.close();
    }
    await phone.close();
  });
});
