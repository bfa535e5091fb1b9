/**
 * A small static file server for the built site (dist/), used by `npm start` and by the browser tests.
 * Serves the site under its base path (SITE_BASE at build time) on 127.0.0.1 only; needs no network.
 * Text goes out compressed (brotli or gzip, as the browser's Accept-Encoding allows: compress.ts).
 */
import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { chooseEncoding, compressBody, compressible } from './compress.ts';

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
      const version = file === null ? '' : await stat(file).then((i) => `${file}\0${i.size}\0${i.mtimeMs}`, () => '');
      if (body === null) {
        const page = await readFile(notFoundPage).catch(() => Buffer.from('Not found'));
        response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        response.end(page);
        return;
      }
      const type = MIME[extname(file as string)] ?? 'application/octet-stream';
      const encoding = compressible(type) ? chooseEncoding(request.headers['accept-encoding']) : null;
      const headers: Record<string, string> = { 'content-type': type, 'cache-control': 'no-cache', vary: 'accept-encoding', ...(options.crossOriginIsolation ? ISOLATION_HEADERS : {}) };
      if (encoding === null) {
        response.writeHead(200, headers);
        response.end(body);
        return;
      }
      const packed = await compressBody(body, encoding, version);
      response.writeHead(200, { ...headers, 'content-encoding': encoding, 'content-length': String(packed.length) });
      response.end(packed);
    })().catch((error: unknown) => {
      // A failed read or compression answers 500 and names it, rather than leaving the request open.
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`course server: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, '127.0.0.1', done);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return { server, url: `http://127.0.0.1:${port}${options.base}` };
}
