/**
 * An Astro integration that puts the in-page labs' large files into the built site, so nothing is fetched from a CDN:
 *   ort/    onnxruntime-web's WebGPU build (its ESM bundle and the one .wasm it loads: in 1.30 the asyncify build, not JSEP), from node_modules;
 *   models/ the gpu-batching lab's model, generated here by the lab's own code (labs/gpu-batching/src/model-onnx.ts:
 *           the same bytes the Node lab writes), never downloaded and not committed.
 * Done after the build (astro:build:done) so Vite never bundles or inlines them; the episode-08 lab loads them at
 * `${BASE_URL}ort/...` and `${BASE_URL}models/...`.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files of onnxruntime-web the page needs, by their names in its dist/ folder. */
const ORT_FILES = ['ort.webgpu.bundle.min.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'] as const;

/** onnxruntime-web's dist/ folder (resolved under Node's conditions: dist/ort.node.min.mjs, beside the browser files). */
function ortDistFolder(): string {
  return dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
}

/** One file the episode-08 lab fetches on its first run: its size as the build writes it and gzipped (bytes). */
export interface LabDownload {
  what: string;
  bytes: number;
  /** Its size sent gzip-compressed (level 6, what static hosts commonly send): what most learners download. */
  gzipBytes: number;
}

const gzipAsync = promisify(gzip);

async function download(what: string, bytes: Uint8Array): Promise<LabDownload> {
  return { what, bytes: bytes.length, gzipBytes: (await gzipAsync(bytes, { level: 6 })).length };
}

/**
 * What episode 08's in-page lab downloads on its first run, read from the files themselves at build time (the page
 * says it before the run starts): the runtime's .wasm and JavaScript as copied into ort/, and the model's bytes, each
 * as a file and gzipped (the model's random weights hardly compress; the runtime's code does, to about a quarter).
 */
export async function gpuBatchingDownloads(): Promise<LabDownload[]> {
  const ortDist = ortDistFolder();
  const { generateModelBytes } = await import('@parallel-course/gpu-batching/model-onnx.ts');
  // About 1 s of CPU at build time, for the one page with this lab.
  return Promise.all([
    download("onnxruntime-web's WebAssembly runtime", readFileSync(join(ortDist, ORT_FILES[1]))),
    download('its JavaScript', readFileSync(join(ortDist, ORT_FILES[0]))),
    download('the model', generateModelBytes()),
  ]);
}

export function browserLabAssets() {
  return {
    name: 'course-browser-lab-assets',
    hooks: {
      'astro:build:done': async ({ dir }: { dir: URL }) => {
        const out = fileURLToPath(dir);
        const ortDist = ortDistFolder();
        mkdirSync(join(out, 'ort'), { recursive: true });
        for (const file of ORT_FILES) copyFileSync(join(ortDist, file), join(out, 'ort', file));
        const { generateModelBytes } = await import('@parallel-course/gpu-batching/model-onnx.ts');
        const { modelFileName } = await import('@parallel-course/gpu-batching/model-file.ts');
        mkdirSync(join(out, 'models'), { recursive: true });
        writeFileSync(join(out, 'models', modelFileName()), generateModelBytes());
      },
    },
  };
}
