/**
 * Accessibility (issue 29): axe-core reports no violation on any built page, at 390 and 1280 px (light theme)
 * (scripts/axe-pages.ts injects the installed axe.min.js; nothing is downloaded).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { axeViolations } from '../scripts/axe-pages.ts';
import { CHROMIUM, openSite } from './support/site.ts';

test('axe-core: zero violations on every page at 390 and 1280 px', { skip: CHROMIUM === '' ? 'no chromium (see test/support/browser.ts)' : false, timeout: 3_600_000 }, async () => {
  const site = await openSite();
  try {
    const violations = await axeViolations(site.browser, site.url);
    const lines = violations.map((v) => `${v.width}px ${v.page}: ${v.id}: ${v.help}: ${v.targets.join(' | ')}`);
    assert.deepEqual(lines, [], `${violations.length} axe violation(s):\n${lines.join('\n')}`);
  } finally {
    await site.close();
  }
});
