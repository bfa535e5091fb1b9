/**
 * `npm run build:checked -w site`: `astro build`, failing when the build prints any warning.
 * A warning is a defect here (a missing page, a skipped integration, a broken link in the making), and the site
 * tests build with this script so a new warning cannot pass unnoticed. Extra arguments go to `astro build`.
 * Exit codes: astro's own when it fails, 1 for warnings or output that shows no finished build.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildCompleted, BUILD_COMPLETE, findWarnings } from './build-log.ts';

// Astro's command line, run on this same Node (24, through npm run): the `astro` on PATH may be the system's Node 20.
// 'astro' resolves to <package>/dist/index.js; its command line is <package>/bin/astro.mjs ("bin" in its package.json).
const astroBin = join(dirname(createRequire(import.meta.url).resolve('astro')), '..', 'bin', 'astro.mjs');

const child = spawn(process.execPath, [astroBin, 'build', ...process.argv.slice(2)], {
  cwd: new URL('..', import.meta.url),
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (chunk: Buffer) => {
  output += chunk.toString('utf8');
  process.stdout.write(chunk);
});
child.stderr.on('data', (chunk: Buffer) => {
  output += chunk.toString('utf8');
  process.stderr.write(chunk);
});
const code = await new Promise<number | null>((done) => child.on('close', done));

if (code !== 0) {
  console.error(`\nastro build failed (exit ${code}); see its output above.`);
  process.exit(code ?? 1);
}
if (!buildCompleted(output)) {
  console.error(
    `\nastro build exited 0 but printed no "${BUILD_COMPLETE}" line, so its warnings could not be checked: ` +
      'update scripts/build-log.ts to the new output.',
  );
  process.exit(1);
}
const warnings = findWarnings(output);
if (warnings.length > 0) {
  console.error(`\nThe build printed ${warnings.length} warning(s); the course builds without any:`);
  for (const warning of warnings) console.error(`  ${warning}`);
  process.exit(1);
}
console.log('\nBuild finished without warnings.');
