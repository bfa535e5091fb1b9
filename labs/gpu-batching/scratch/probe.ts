import { probeCuda } from '../src/cuda-probe.ts';
import { ensureModelFile } from '../src/model-file.ts';
console.log(probeCuda(ensureModelFile().path));
