/** `npm run generate-model -w labs/gpu-batching`: writes the lab's model file (also done on first use). */
import { ensureModelFile } from './model-file.ts';

const model = ensureModelFile();
process.stdout.write(`${model.generated ? 'wrote' : 'up to date:'} ${model.path} (${(model.bytes / 1e6).toFixed(1)} MB, sha256 ${model.sha256})\n`);
