/**
 * `npm start`: serves the built course on http://127.0.0.1:<PORT>/<SITE_BASE> (PORT defaults to 4321).
 * Offline: everything the pages need is in dist/. The pages are cross-origin isolated (COOP/COEP headers), so the
 * in-page labs get SharedArrayBuffer and the finer timer; COURSE_ISOLATION=0 serves them without, as a plain static
 * host would.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolveBase } from '../src/lib/base-path.ts';
import { startStaticServer } from './static-server.ts';

const root = fileURLToPath(new URL('../dist/', import.meta.url));
if (!existsSync(root)) {
  console.error(`No built site in ${root}: run "npm run build -w site" (or "npm start", which builds first).`);
  process.exit(2);
}
const port = Number(process.env['PORT'] ?? 4321);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a TCP port number (0-65535), got ${JSON.stringify(process.env['PORT'])}`);
  process.exit(2);
}
try {
  const crossOriginIsolation = process.env['COURSE_ISOLATION'] !== '0';
  const { url } = await startStaticServer({ root, base: resolveBase(process.env['SITE_BASE']), port, crossOriginIsolation });
  console.log(`The course is served at ${url}  (Ctrl+C stops it)`);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(
    code === 'EADDRINUSE'
      ? `Port ${port} is in use: set another one, e.g. PORT=4322 npm start`
      : `Could not start the server: ${(error as Error).message}`,
  );
  process.exit(2);
}
