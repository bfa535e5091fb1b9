/**
 * How the course runs Astro's command line: on this same Node (24, through npm run; the `astro` on PATH may be the
 * system's Node 20) and with Astro's telemetry off. Astro 7 sends anonymous usage data to telemetry.astro.build from
 * `astro build`, `dev` and `preview` unless ASTRO_TELEMETRY_DISABLED (or TELEMETRY_DISABLED) is set
 * (node_modules/@astrojs/telemetry/dist/index.js): a course that works offline sends nothing, so every script sets it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** 'astro' resolves to <package>/dist/index.js; its command line is <package>/bin/astro.mjs ("bin" in its package.json). */
export const ASTRO_BIN = join(dirname(createRequire(import.meta.url).resolve('astro')), '..', 'bin', 'astro.mjs');

/** The environment for an Astro child process: the caller's, with telemetry off. */
export function astroEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, ASTRO_TELEMETRY_DISABLED: '1' };
}
