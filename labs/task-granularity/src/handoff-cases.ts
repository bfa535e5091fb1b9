/**
 * The data-movement cases: the same payload handed to a worker thread by structured clone, by transferring its
 * ArrayBuffer, and through a SharedArrayBuffer, against checksumming it on the main thread (the baseline with the
 * same payloadMiB). One sample is one round trip: hand the payload over, the worker checksums it, the answer comes back.
 */
import { TRANSPORT } from './learner-files.ts';
import { Worker } from 'node:worker_threads';
import type { CaseDefinition, CaseInstance } from '@parallel-course/harness';
import { importImpl, type LabOutput } from './cases.ts';
import type { HandoffReply, HandoffRequest, Transport } from './handoff-protocol.ts';
import type { LabInput } from './inputs.ts';
import { checksum, warmChecksum } from './payload.ts';

type Case = CaseDefinition<LabInput, LabOutput>;
type Instance = CaseInstance<LabInput, LabOutput>;

interface TransportModule {
  stage(transport: Transport, bytes: Uint8Array): Uint8Array;
  transferList(transport: Transport, staged: Uint8Array): ArrayBuffer[];
}

function payloadOf(input: LabInput): Uint8Array {
  if (input.kind !== 'payload') throw new TypeError(`this case runs on a payload input, got a ${input.kind} input`);
  return input.bytes;
}

/** The baseline of the data-movement cases: the checksum on the main thread, nothing handed over. */
export function serialPayloadCase(payloadMiB: number): Case {
  return {
    variant: 'serial',
    params: { payloadMiB },
    async setup(): Promise<Instance> {
      warmChecksum();
      return { run: (input) => [checksum(payloadOf(input))], teardown() {} };
    },
  };
}

/** Rules a hand-off must keep, checked on every sample: each names the mistake and the fix. */
function checkStaged(transport: Transport, input: Uint8Array, staged: Uint8Array): void {
  if (transport === 'transfer' && staged.length > 0 && staged.buffer === input.buffer) {
    throw new Error("stage('transfer') returned the caller's own bytes: transferring would detach them; return a copy (bytes.slice())");
  }
  if (transport === 'shared' && !(staged.buffer instanceof SharedArrayBuffer)) {
    throw new Error("stage('shared') must return a Uint8Array over a SharedArrayBuffer (new Uint8Array(new SharedArrayBuffer(n)))");
  }
}

export function handoffCase(transport: Transport, payloadMiB: number): Case {
  return {
    variant: transport,
    params: { payloadMiB },
    async setup(ctx): Promise<Instance> {
      const impl = await importImpl<TransportModule>(ctx, TRANSPORT);
      const worker = new Worker(new URL('./handoff-worker.ts', import.meta.url));
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve()); // 'ready': the first message the worker sends
        worker.once('error', reject);
      });
      // Each input is staged once, outside the samples that use it: a real program would produce its data in the
      // staged buffer. A transferred buffer comes back with the reply and replaces the staged one.
      const staged = new WeakMap<Uint8Array, Uint8Array>();
      const handoffMs: number[] = [];
      let pending: { resolve: (reply: HandoffReply) => void; reject: (error: Error) => void } | null = null;
      worker.on('message', (reply: HandoffReply) => pending?.resolve(reply));
      worker.on('error', (error) => pending?.reject(error));
      worker.on('exit', (code) => pending?.reject(new Error(`the hand-off worker exited with code ${code}`)));
      return {
        async run(input) {
          const bytes = payloadOf(input);
          let payload = staged.get(bytes);
          if (!payload) {
            payload = impl.stage(transport, bytes);
            checkStaged(transport, bytes, payload);
            staged.set(bytes, payload);
          }
          const transfer = impl.transferList(transport, payload);
          const request: HandoffRequest = { transport, bytes: payload };
          const reply = new Promise<HandoffReply>((resolve, reject) => (pending = { resolve, reject }));
          const sentAtNs = process.hrtime.bigint();
          worker.postMessage(request, transfer);
          if (transport === 'transfer' && payload.byteLength > 0) {
            pending = null;
            reply.catch(() => {}); // the case fails here; its late answer is of no interest
            throw new Error("the payload was copied, not transferred: transferList('transfer') must list its ArrayBuffer");
          }
          const answer = await reply;
          pending = null;
          handoffMs.push(Number(answer.receivedAtNs - sentAtNs) / 1e6);
          if (answer.bytes) staged.set(bytes, answer.bytes);
          return [answer.checksum];
        },
        resetObservations() {
          handoffMs.length = 0;
        },
        collectObservations() {
          return {
            'hand-off': {
              unit: 'ms',
              description: 'one way, main thread to worker: from before postMessage until the worker has the payload',
              samples: [...handoffMs],
            },
          };
        },
        async teardown() {
          pending = null;
          await worker.terminate();
        },
      };
    },
  };
}
