/**
 * Out-of-memory handling: when a batch does not fit (ONNX Runtime's arena or CUDA cannot allocate), halve the batch
 * and retry, say so once per halving, and keep the smaller batch for later calls. A batch of one that does not fit is
 * a real error: the model itself is too big for the device.
 */
import { HarnessError } from '@parallel-course/harness/learner.ts';

/**
 * Matches the allocation failures ONNX Runtime reports on CPU (bad_alloc, arena), on CUDA (cudaErrorMemoryAllocation)
 * and on WebGPU (Dawn's OutOfMemory, and a buffer over the adapter's maxBufferSize or maxStorageBufferBindingSize
 * limit: a smaller batch needs smaller buffers, so halving is the fix there too).
 */
const ALLOCATION_ERROR = /out ?of ?memory|failed to allocate|bad_alloc|cudaErrorMemoryAllocation|CUDNN_STATUS_ALLOC_FAILED|exceeds (the|device) limit|maxBufferSize|maxStorageBufferBindingSize/i;

export function isAllocationError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return ALLOCATION_ERROR.test(message);
}

export class AllocationError extends HarnessError { readonly code = 'ALLOCATION_FAILED'; override name = 'AllocationError'; }

/** Runs `count` samples (count x features floats) and resolves to count x outputs floats, in order. */
export type InferFn = (samples: Float32Array, count: number) => Promise<Float32Array>;

export interface HalvingOptions {
  features: number;
  outputs: number;
  /** Called each time the batch is halved: `from` samples did not fit, `to` will be tried next. */
  onHalve(from: number, to: number, error: unknown): void;
}

export interface HalvingInfer {
  infer: InferFn;
  /** The largest batch known to fit so far (Infinity until a failure says otherwise). */
  readonly cap: number;
}

/**
 * Wraps `infer` so an allocation failure halves the batch and retries the same samples; other errors pass through.
 * Outputs stay in input order because the pieces are run and written in order.
 */
export function withHalving(infer: InferFn, options: HalvingOptions): HalvingInfer {
  let cap = Number.POSITIVE_INFINITY;
  const run: InferFn = async (samples, count) => {
    if (count <= cap) {
      try {
        return await infer(samples, count);
      } catch (error) {
        if (!isAllocationError(error)) throw error;
        if (count <= 1) {
          throw new AllocationError(
            `a batch of 1 does not fit in memory: the model alone is too big for this device (${(error as Error).message}). ` +
              'Run `npm run memory-plan -w labs/gpu-batching` to see the memory per device.',
            { cause: error },
          );
        }
        const next = Math.floor(count / 2);
        options.onHalve(count, next, error);
        cap = next;
      }
    }
    // Run in pieces of at most `cap` samples (cap may shrink again inside).
    const out = new Float32Array(count * options.outputs);
    for (let start = 0; start < count; ) {
      const piece = Math.min(cap, count - start);
      const part = await run(samples.subarray(start * options.features, (start + piece) * options.features), piece);
      out.set(part, start * options.outputs);
      start += piece;
    }
    return out;
  };
  return {
    infer: run,
    get cap() {
      return cap;
    },
  };
}
