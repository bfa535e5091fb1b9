/**
 * `npm run build:wasm -w site`: compiles the in-page labs' WebAssembly from its AssemblyScript source
 * (src/browser-lab/wasm/*.as.ts) into the committed .wasm files beside it. `--check` compiles into a temporary folder
 * and fails, naming the file, when a committed .wasm differs from what its source builds (test/browser-lab-wasm.test.ts
 * runs it), so the binary a learner's browser runs is always the source in the repository.
 * The .wasm files are committed so that `npm ci` needs no compiler run and the built site fetches nothing at run time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { THREADS_MAX_PAGES } from '../src/browser-lab/wasm/threads-memory.ts';

const WASM_DIR = fileURLToPath(new URL('../src/browser-lab/wasm/', import.meta.url));

/** The threaded modules' memory flags: imported (the page creates it), shared (needs threads), with a maximum. */
const SHARED_MEMORY = ['--enable', 'threads', '--importMemory', '--sharedMemory', '--initialMemory', '1', '--maximumMemory', String(THREADS_MAX_PAGES)];
/** Relaxed SIMD: simd-blocked.as.ts's multiply-add becomes f64x2.relaxed_madd (fused where the CPU has FMA). */
const RELAXED = ['--enable', 'simd', '--enable', 'relaxed-simd'];

/**
 * Each module: its source, its output, and the WebAssembly features it is built with. The blocked modules are built
 * twice from one source, with and without relaxed SIMD (ASC_FEATURE_RELAXED_SIMD in simd-blocked.as.ts): the page
 * loads the relaxed build where the browser validates relaxed SIMD, the plain one elsewhere.
 */
export const WASM_MODULES = [
  { source: 'matmul-scalar.as.ts', output: 'matmul-scalar.wasm', flags: [] as string[] },
  { source: 'matmul-simd.as.ts', output: 'matmul-simd.wasm', flags: ['--enable', 'simd'] },
  { source: 'matmul-blocked.as.ts', output: 'matmul-blocked.wasm', flags: ['--enable', 'simd'] },
  { source: 'matmul-blocked.as.ts', output: 'matmul-blocked-relaxed.wasm', flags: RELAXED },
  // One memory shared by every Web Worker (threads-memory.ts): a shared memory must declare a maximum.
  { source: 'matmul-blocked-threads.as.ts', output: 'matmul-blocked-threads.wasm', flags: ['--enable', 'simd', ...SHARED_MEMORY] },
  { source: 'matmul-blocked-threads.as.ts', output: 'matmul-blocked-threads-relaxed.wasm', flags: [...RELAXED, ...SHARED_MEMORY] },
] as const;

const ascBin = join(dirname(createRequire(import.meta.url).resolve('assemblyscript/package.json')), 'bin', 'asc.js');

/** Compiles every module into `outDir`; throws with asc's output when one fails. */
export function buildWasm(outDir: string): void {
  for (const module of WASM_MODULES) {
    const args = [ascBin, join(WASM_DIR, module.source), '-O3', '--noAssert', '--runtime', 'stub', ...module.flags, '-o', join(outDir, module.output)];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: WASM_DIR });
    if (run.status !== 0) throw new Error(`asc failed on ${module.source} (exit ${run.status}):\n${run.stdout}${run.stderr}`);
  }
}

/** The committed modules that differ from a fresh build of their sources (empty when all match). */
export function staleWasm(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'course-wasm-'));
  try {
    buildWasm(dir);
    return WASM_MODULES.filter((m) => {
      let committed: Buffer;
      try {
        committed = readFileSync(join(WASM_DIR, m.output));
      } catch {
        return true;
      }
      return !committed.equals(readFileSync(join(dir, m.output)));
    }).map((m) => m.output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = staleWasm();
    if (stale.length > 0) {
      console.error(`${stale.join(', ')} in src/browser-lab/wasm/ differ from their source: run "npm run build:wasm -w site" and commit them`);
      process.exit(1);
    }
    console.log('The committed .wasm files match their AssemblyScript sources.');
  } else {
    buildWasm(WASM_DIR);
    console.log(`Built ${WASM_MODULES.map((m) => m.output).join(', ')} in src/browser-lab/wasm/`);
  }
}
