/**
 * `node scripts/astro.ts <astro arguments>`: Astro's command line with telemetry off (astro-command.ts), for the
 * site's npm scripts (build, preview, start). Cross-platform, unlike `VAR=1 astro` in a script line (not cmd.exe).
 * Exits with Astro's exit code.
 */
import { spawn } from 'node:child_process';
import { ASTRO_BIN, astroEnv } from './astro-command.ts';

const child = spawn(process.execPath, [ASTRO_BIN, ...process.argv.slice(2)], {
  cwd: new URL('..', import.meta.url),
  stdio: 'inherit',
  env: astroEnv(),
});
// Ctrl+C reaches the child through the terminal's process group; wait for it to finish and pass its status on.
process.on('SIGINT', () => {});
const code = await new Promise<number>((done) => child.on('close', (c, signal) => done(c ?? (signal ? 130 : 1))));
process.exit(code);
