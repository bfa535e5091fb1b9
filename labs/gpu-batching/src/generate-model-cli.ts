/** `npm run generate-model -w labs/gpu-batching`: writes the lab's model file (also done on first use). */
import { formatBytes } from '@parallel-course/core';
import { ensureModelFile } from './model-file.ts';

const model = ensureModelFile();
process.stdout.write(`${model.generated ? 'wrote' : 'up to date:'} ${model.path} (${formatBytes(model.bytes)}, sha256 ${model.sha256})\n`);
