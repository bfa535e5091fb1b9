/**
 * `npm run build:checked -w site`: `astro build`, failing when the build prints any warning.
 * A warning is a defect here (a missing page, a skipped integration, a broken link in the making), and the site
 * tests build with this script so a new warning cannot pass unnoticed. Extra arguments go to `astro build`.
 * Exit codes: astro's own when it fails, 1 for warnings or output that shows no finished build.
 */
import { spawn } from 'node:child_process';
import { buildCompleted, BUILD_COMPLETE, findWarnings } from './build-log.ts';
import { ASTRO_BIN, astroEnv } from './astro-command.ts';

const child = spawn(process.execPath, [ASTRO_BIN, 'build', ...process.argv.slice(2)], {
  cwd: new URL('..', import.meta.url),
  env: astroEnv(),
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
