import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile, open } from 'node:fs/promises';
import os from 'node:os';
const dir = os.tmpdir() + '/gb-io-test'; mkdirSync(dir, { recursive: true });
const N = 1024;
const buf = Buffer.alloc(784 * 4, 7);
for (let i = 0; i < N; i++) writeFileSync(`${dir}/s${i}.bin`, buf);
for (const conc of [1, 4, 16, 64]) {
  const t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: conc }, async () => { while (next < N) { const i = next++; await readFile(`${dir}/s${i}.bin`); } }));
  const ms = performance.now() - t;
  console.log('readFile conc', conc, 'per file us', (ms * 1000 / N).toFixed(1));
}
for (const conc of [1, 16]) {
  const t = performance.now();
  let next = 0;
  const out = new Float32Array(N * 784);
  await Promise.all(Array.from({ length: conc }, async () => { while (next < N) { const i = next++; const fh = await open(`${dir}/s${i}.bin`); await fh.read(new Uint8Array(out.buffer, i * 3136, 3136), 0, 3136, 0); await fh.close(); } }));
  const ms = performance.now() - t;
  console.log('open/read conc', conc, 'per file us', (ms * 1000 / N).toFixed(1));
}
