/**
 * An Astro integration that puts the in-page labs' large files into the built site, so nothing is fetched from a CDN:
 *   ort/    onnxruntime-web's WebGPU build (its ESM bundle and the one .wasm it loads: in 1.30 the asyncify build, not JSEP), from node_modules;
 *   models/ the gpu-batching lab's model, generated here by the lab's own code (labs/gpu-batching/src/model-onnx.ts:
 *           the same bytes the Node lab writes), never downloaded and not committed.
 * Done after the build (astro:build:done) so Vite never bundles or inlines them; the episode-08 lab loads them at
 * `${BASE_URL}ort/...` and `${BASE_URL}models/...`.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files of onnxruntime-web the page needs, by their names in its dist/ folder. */
export const ORT_FILES = ['ort.webgpu.bundle.min.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'] as const;

export function browserLabAssets() {
  return {
    name: 'course-browser-lab-assets',
    hooks: {
      'astro:build:done': async ({ dir }: { dir: URL }) => {
        const out = fileURLToPath(dir);
        // Resolved under Node's conditions: dist/ort.node.min.mjs, whose folder holds the browser files too.
        const ortDist = dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
        mkdirSync(join(out, 'ort'), { recursive: true });
        for (const file of ORT_FILES) copyFileSync(join(ortDist, file), join(out, 'ort', file));
        const { generateModelBytes } = await import('../../../labs/gpu-batching/src/model-onnx.ts');
        const { modelFileName } = await import('../../../labs/gpu-batching/src/model-file.ts');
        mkdirSync(join(out, 'models'), { recursive: true });
        writeFileSync(join(out, 'models', modelFileName()), generateModelBytes());
      },
    },
  };
}
