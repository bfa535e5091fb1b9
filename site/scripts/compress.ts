/**
 * Compression for the course's static server (static-server.ts): the browser says what it accepts
 * (Accept-Encoding), and text (HTML, scripts, styles, JSON, SVG) goes out as brotli or gzip, node:zlib only.
 * Compressed bodies are kept in memory per file version, so each file is compressed once per server.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

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

const cache = new Map<string, Buffer>();

/** `body` compressed with `encoding`; `version` (path, size and mtime) keys the in-memory copy. */
export function compressBody(body: Buffer, encoding: Encoding, version: string): Buffer {
  const key = `${encoding}\0${version}`;
  let out = cache.get(key);
  if (!out) {
    out =
      encoding === 'br'
        ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : gzipSync(body, { level: 9 });
    cache.set(key, out);
  }
  return out;
}
