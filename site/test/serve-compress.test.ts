/** The course's server (scripts/static-server.ts) compresses text as the browser's Accept-Encoding allows. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chooseEncoding, compressBody, compressible } from '../scripts/compress.ts';
import { startStaticServer } from '../scripts/static-server.ts';

test('chooseEncoding: brotli, else gzip, else none; q=0 refuses; * stands for the rest', () => {
  assert.equal(chooseEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(chooseEncoding('gzip, deflate'), 'gzip');
  assert.equal(chooseEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(chooseEncoding('gzip;q=0'), null);
  assert.equal(chooseEncoding('identity'), null);
  assert.equal(chooseEncoding(undefined), null);
  assert.equal(chooseEncoding('*'), 'br');
  assert.equal(chooseEncoding('*, br;q=0'), 'gzip');
  assert.ok(compressible('text/html; charset=utf-8') && compressible('application/json; charset=utf-8') && compressible('image/svg+xml'));
  assert.ok(!compressible('image/png') && !compressible('font/woff2') && !compressible('application/octet-stream'));
});

function get(url: string, acceptEncoding: string | null): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(url, { headers: acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

test('the server sends gzip or brotli when asked, the plain file otherwise, and leaves images alone', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'site-compress-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const html = `<!doctype html><title>x</title>${'<p>the same words again</p>'.repeat(2000)}`;
  writeFileSync(path.join(root, 'index.html'), html);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
  writeFileSync(path.join(root, 'a.png'), png);
  const { server, url } = await startStaticServer({ root, base: '/course/', port: 0 });
  t.after(() => new Promise<void>((done) => server.close(() => done())));

  const gzip = await get(url, 'gzip, deflate');
  assert.equal(gzip.status, 200);
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.equal(gzip.headers['vary'], 'accept-encoding');
  assert.equal(gunzipSync(gzip.body).toString('utf8'), html);
  assert.ok(gzip.body.length < html.length / 10, `gzip made ${html.length} bytes into ${gzip.body.length}`);

  const br = await get(url, 'gzip, deflate, br');
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.body).toString('utf8'), html);

  const plain = await get(url, null);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body.toString('utf8'), html);

  const image = await get(`${url}a.png`, 'gzip, br');
  assert.equal(image.headers['content-encoding'], undefined, 'a PNG is already compressed');
  assert.deepEqual(image.body, png);
});

test('compression runs off the event loop, once per file version, however many requests wait for it', async () => {
  // 4 MB of words in random order, which brotli takes tens of milliseconds or more to compress: a synchronous
  // compression (the server's before) returns before any timer can fire, so `ticks` stays 0; on the thread pool the
  // event loop keeps turning meanwhile.
  const words = ['load', 'event', 'worker', 'chunk', 'kernel', 'batch', 'speedup', 'interval'];
  const text = Array.from(randomBytes(600_000), (byte) => words[byte % words.length]).join(' ');
  const body = Buffer.from(text);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const [first, second] = await Promise.all([compressBody(body, 'br', 'test\0one'), compressBody(body, 'br', 'test\0one')]);
    assert.ok(ticks > 0, 'the event loop ran while the body was compressed');
    assert.equal(first, second, 'two requests for one version share one compression');
    assert.equal(brotliDecompressSync(first).toString('utf8'), text);
    assert.ok(first.length < body.length / 4, `brotli made ${body.length} bytes into ${first.length}`);
  } finally {
    clearInterval(timer);
  }
});
