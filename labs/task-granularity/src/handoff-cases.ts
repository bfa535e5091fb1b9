/**
 * The data-movement cases: the same payload handed to a worker thread by structured clone, by transferring its
 * ArrayBuffer, and through a SharedArrayBuffer, against checksumming it on the main thread (the baseline with the
 * same payloadMiB). One call is one round trip: hand the payload over, the worker checksums it, the answer comes back.
 * Each call takes the next of several copies of its input (payload-copies.ts), staged once, so no call finds its
 * payload in a core's cache from the call before, however many calls a sample makes.
 */
import { TRANSPORT } from './learner-files.ts';
import { Worker } from 'node:worker_threads';
import type { CaseDefinition, CaseInstance } from '@parallel-course/harness';
import { importImpl, type LabOutput } from './cases.ts';
import type { HandoffReply, HandoffRequest, Transport } from './handoff-protocol.ts';
import type { LabInput } from './inputs.ts';
import { checksum, warmChecksum } from './payload.ts';
import { PayloadCycle } from './payload-copies.ts';

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
      const copies = new PayloadCycle((copy) => copy);
      return { run: (input) => [checksum(copies.next(payloadOf(input)).item)], teardown() {} };
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
      // Each input's copies are staged once, outside the samples that use them: a real program would produce its data
      // in the staged buffer. A transferred buffer comes back with the reply and replaces the staged one.
      // Each copy staged in memory of its own: a stage that handed out one buffer for every copy would undo the cycle
      // (each call would find the call before's payload in a core's cache), so it fails the case.
      // Memory, not ArrayBuffers: honest copies of a few bytes (Buffer.from) lie at different places of Node's one pool.
      let used = new Map<ArrayBufferLike, { from: number; to: number }[]>();
      const staged = new PayloadCycle((copy, index) => {
        const payload = impl.stage(transport, copy);
        checkStaged(transport, copy, payload);
        if (index === 0) used = new Map(); // the first copy of the next input: PayloadCycle makes an input's copies at once
        const from = payload.byteOffset;
        const to = from + payload.byteLength;
        const ranges = used.get(payload.buffer) ?? [];
        if (payload.byteLength > 0 && ranges.some((r) => from < r.to && r.from < to)) {
          throw new Error(
            `stage('${transport}') returned memory it had returned for another copy of the payload: stage each payload it is given in memory of its own ` +
              `(as a program produces each payload in its own buffer), or every hand-off after the first reads data a core's cache still holds`,
          );
        }
        used.set(payload.buffer, [...ranges, { from, to }]);
        return payload;
      });
      const handoffMs: number[] = [];
      let pending: { resolve: (reply: HandoffReply) => void; reject: (error: Error) => void } | null = null;
      worker.on('message', (reply: HandoffReply) => pending?.resolve(reply));
      worker.on('error', (error) => pending?.reject(error));
      worker.on('exit', (code) => pending?.reject(new Error(`the hand-off worker exited with code ${code}`)));
      return {
        async run(input) {
          const bytes = payloadOf(input);
          const { item: payload, index } = staged.next(bytes);
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
          if (answer.bytes) staged.replace(bytes, index, answer.bytes);
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
