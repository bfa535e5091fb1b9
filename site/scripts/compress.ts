/**
 * Compression for the course's static server (static-server.ts): the browser says what it accepts
 * (Accept-Encoding), and text (HTML, scripts, styles, JSON, SVG) goes out as brotli or gzip, node:zlib only.
 * Compressed bodies are kept in memory per file version, so each file is compressed once per server.
 * Compression runs on libuv's thread pool (zlib's callback API), not on the server's event loop: ONNX Runtime's 26 MB
 * wasm took 4 CPU-seconds at brotli quality 9, and the synchronous call held every other request of the page that long.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Brotli quality for a body compressed when first asked for. 5, not 9: on the course's 2-vCPU VM the 26 MB ONNX Runtime
 * wasm came to 4.94 MB in 0.74 CPU-seconds at 5 and to 4.69 MB in 4.0 at 9 (5 % smaller for five times the CPU, paid
 * by the reader who asks first, and by every browser test's server).
 */
const BROTLI_QUALITY = 5;

export type Encoding = 'br' | 'gzip';

/** Types worth compressing: text of every kind; images, fonts and Pagefind's binary fragments are already compact. */
export function compressible(contentType: string): boolean {
  return /^(text\/|application\/(json|javascript|xml|wasm)|image\/svg\+xml)/.test(contentType);
}

/**
 * The encoding to answer with for an Accept-Encoding header: brotli when accepted, else gzip, else none.
 * Honours q-values (`gzip;q=0` refuses gzip) and `*` (any encoding not named).
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const accepts = (name: Encoding): boolean => (weights.get(name) ?? weights.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return null;
}

const cache = new Map<string, Promise<Buffer>>();

/**
 * `body` compressed with `encoding`; `version` (path, size and mtime) keys the in-memory copy. Requests that arrive
 * while a version is being compressed wait for that one compression; a failed one is forgotten, so the next request
 * tries again.
 */
export function compressBody(body: Buffer, encoding: Encoding, version: string): Promise<Buffer> {
  const key = `${encoding}\0${version}`;
  let out = cache.get(key);
  if (!out) {
    out =
      encoding === 'br'
        ? brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : gzipAsync(body, { level: 9 });
    cache.set(key, out);
    out.catch(() => cache.delete(key));
  }
  return out;
}
