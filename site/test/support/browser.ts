/**
 * Finds a Chromium-family browser for the browser tests: CHROMIUM_PATH if set, else the usual places on Linux and
 * macOS (Debian's chromium first: CI installs it). When none is found, one line says how to get one on this platform.
 * playwright-core cannot download a browser here (TOOLCHAIN.md), and a Chromium inside an npm package still needs the
 * system's libnss3, so the browser is a prerequisite, not a dependency.
 */
import { existsSync } from 'node:fs';

export const BROWSER_CANDIDATES: Readonly<Record<string, readonly string[]>> = {
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
  ],
};

/** How to install a browser, per platform, in one line. */
export function installHint(platform: string): string {
  if (platform === 'darwin') return 'install Google Chrome or Chromium (brew install --cask chromium), or set CHROMIUM_PATH to a Chromium-family browser';
  if (platform === 'linux') return 'install Debian/Ubuntu\'s chromium (sudo apt-get install -y --no-install-recommends chromium), or set CHROMIUM_PATH';
  return 'set CHROMIUM_PATH to a Chromium or Chrome executable';
}

/** The browser to drive, or an Error whose message is the one-line fix. */
export function findBrowser(env: NodeJS.ProcessEnv = process.env, platform: string = process.platform, exists: (file: string) => boolean = existsSync): string | Error {
  const given = env['CHROMIUM_PATH'];
  if (given) return exists(given) ? given : new Error(`CHROMIUM_PATH is ${given}, which does not exist: ${installHint(platform)}`);
  const found = (BROWSER_CANDIDATES[platform] ?? []).find((file) => exists(file));
  return found ?? new Error(`no Chromium-family browser found for the browser tests: ${installHint(platform)}`);
}
