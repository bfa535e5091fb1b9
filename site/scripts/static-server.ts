/**
 * A small static file server for the built site (dist/), used by `npm start` and by the browser tests.
 * Serves the site under its base path (SITE_BASE at build time) on 127.0.0.1 only; needs no network.
 */
import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

export interface StaticServerOptions {
  /** Folder of the built site, e.g. site/dist. */
  root: string;
  /** URL path the site is built for, starting and ending with "/". */
  base: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /**
   * Send COOP/COEP so pages are cross-origin isolated (SharedArrayBuffer, WebAssembly threads, a finer timer for the
   * in-page labs). `npm start` sends them; a static host without header control cannot, and the labs say so.
   */
  crossOriginIsolation?: boolean;
}

/** The headers that make a page cross-origin isolated; every resource of the built site is same-origin. */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  // Pagefind's index fragments and metadata are binary.
  '.pf_fragment': 'application/octet-stream',
  '.pf_index': 'application/octet-stream',
  '.pf_meta': 'application/octet-stream',
  '.pagefind': 'application/octet-stream',
};

/** Maps a request path to a file under root, or null when it is outside the base or tries to leave root. */
export function resolveRequestPath(root: string, base: string, urlPath: string): string | null {
  let pathname: string;
  try {
    pathname = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return null;
  }
  if (!pathname.startsWith(base)) return null;
  const relative = pathname.slice(base.length);
  const absoluteRoot = resolve(root);
  const candidate = normalize(join(absoluteRoot, relative));
  if (candidate !== absoluteRoot && !candidate.startsWith(absoluteRoot + sep)) return null;
  return relative === '' || relative.endsWith('/') ? join(candidate, 'index.html') : candidate;
}

export async function startStaticServer(options: StaticServerOptions): Promise<{ server: Server; url: string }> {
  const notFoundPage = join(options.root, '404.html');
  const server = createServer((request, response) => {
    void (async () => {
      let file = resolveRequestPath(options.root, options.base, request.url ?? '/');
      if (file !== null) {
        // "/episode" without the slash: serve its folder's index (Astro builds folder/index.html).
        const info = await stat(file).catch(() => null);
        if (info?.isDirectory()) file = join(file, 'index.html');
      }
      const body = file === null ? null : await readFile(file).catch(() => null);
      if (body === null) {
        const page = await readFile(notFoundPage).catch(() => Buffer.from('Not found'));
        response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        response.end(page);
        return;
      }
      response.writeHead(200, {
        'content-type': MIME[extname(file as string)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
        ...(options.crossOriginIsolation ? ISOLATION_HEADERS : {}),
      });
      response.end(body);
    })();
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, '127.0.0.1', done);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return { server, url: `http://127.0.0.1:${port}${options.base}` };
}
