/** The browser tests find a browser where one is installed, and say in one line how to get one where none is. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findBrowser } from './support/browser.ts';

test('CHROMIUM_PATH wins; else the first known place that exists, per platform', () => {
  const only = (file: string) => (f: string) => f === file;
  assert.equal(findBrowser({ CHROMIUM_PATH: '/opt/chrome' }, 'linux', only('/opt/chrome')), '/opt/chrome');
  assert.equal(findBrowser({}, 'linux', only('/usr/bin/google-chrome')), '/usr/bin/google-chrome');
  assert.equal(findBrowser({}, 'darwin', only('/Applications/Chromium.app/Contents/MacOS/Chromium')), '/Applications/Chromium.app/Contents/MacOS/Chromium');
});

test('no browser: one line with the fix for this platform', () => {
  const none = () => false;
  assert.equal(String(findBrowser({}, 'linux', none)), "Error: no Chromium-family browser found for the browser tests: install Debian/Ubuntu's chromium (sudo apt-get install -y --no-install-recommends chromium), or set CHROMIUM_PATH");
  assert.match(String(findBrowser({}, 'darwin', none)), /brew install --cask chromium/);
  assert.equal(String(findBrowser({ CHROMIUM_PATH: '/nope' }, 'linux', none)), "Error: CHROMIUM_PATH is /nope, which does not exist: install Debian/Ubuntu's chromium (sudo apt-get install -y --no-install-recommends chromium), or set CHROMIUM_PATH");
});
