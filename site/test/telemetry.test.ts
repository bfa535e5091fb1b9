/** Astro's telemetry is off in every way the course runs Astro (a course that works offline sends nothing). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { astroEnv } from '../scripts/astro-command.ts';

const siteDir = new URL('../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, siteDir), 'utf8');

test('every site script that runs Astro goes through scripts/astro.ts or build-checked.ts, which turn telemetry off', () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const rootScripts = (JSON.parse(read('../package.json')) as { scripts: Record<string, string> }).scripts;
  for (const [name, line] of Object.entries({ ...scripts, ...rootScripts })) {
    for (const command of line.split(/&&|\|\||;/).map((c) => c.trim())) {
      assert.doesNotMatch(command, /^(npx |\.\/node_modules\/\.bin\/)?astro\b/, `script "${name}" runs astro directly (telemetry on): ${command}`);
    }
  }
  assert.match(scripts['build'] ?? '', /^node scripts\/astro\.ts build$/);
  assert.match(scripts['start'] ?? '', /^node scripts\/astro\.ts build && /);
  assert.match(read('scripts/build-checked.ts'), /env: astroEnv\(\)/);
  assert.match(read('scripts/astro.ts'), /env: astroEnv\(\)/);
  assert.equal(astroEnv({ PATH: '/bin' }).ASTRO_TELEMETRY_DISABLED, '1');
  assert.equal(astroEnv({ PATH: '/bin' }).PATH, '/bin', 'the rest of the environment is kept');
  assert.match(read('astro.config.mjs'), /process\.env\.ASTRO_TELEMETRY_DISABLED \?\?= '1'/, 'an `npx astro build` by hand is covered too');
});

test('scripts/astro.ts runs Astro itself', () => {
  const run = spawnSync(process.execPath, ['scripts/astro.ts', '--version'], { cwd: siteDir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /\d+\.\d+\.\d+/);
});
