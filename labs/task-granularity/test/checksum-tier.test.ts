/**
 * warmChecksum leaves checksum() optimised for every payload a hand-off case gives it, so the optimised code it warms
 * is the code every process times. Why (issue 42): the warm-up once ran 4 KiB payloads only (no tail shorter than a
 * word, no view off a word boundary); the check stage's first payload (5 bytes) reached the tail loop, which V8's
 * optimised code had never seen, and threw that code away. What V8 compiled next depended on the timing of its
 * background compiles: in 11 of 47 fresh processes under load (session 20) the hand-off worker's checksum stayed in
 * on-stack-replacement code for its whole life and spent about 3x the CPU time on a 16 MiB shared hand-off
 * (18.0-20.0 ms a call against 6.0-6.7), the process effect a graded run once showed as 2.69.
 *
 * The check runs in a child with V8's test intrinsics (--allow-natives-syntax): warm, optimise with the warm-up's
 * feedback (what V8 does on its own a moment later), then every payload shape the lab hands over; checksum must still
 * be optimised by TurboFan.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const PAYLOAD = new URL('../src/payload.ts', import.meta.url).href;

// V8's GetOptimizationStatus bits (src/runtime/runtime-test.cc, OptimizationStatus): 1 << 6 is "TurboFanned".
const TURBOFANNED = 1 << 6;

const CHILD = `
const { checksum, makePayload, warmChecksum } = await import(${JSON.stringify(PAYLOAD)});
warmChecksum();
%FinalizeOptimization();
const status = () => %GetOptimizationStatus(checksum);
if (!(status() & ${TURBOFANNED})) { %OptimizeFunctionOnNextCall(checksum); checksum(makePayload(1, 4096)); }
const warmed = status();
const shapes = [];
for (const offset of [0, 1]) {
  for (const shared of [false, true]) {
    for (const length of [0, 2, 5, 65_543, 1 << 20]) {
      const plain = makePayload(length, length + offset);
      const bytes = shared ? new Uint8Array(new SharedArrayBuffer(plain.length)) : new Uint8Array(plain.length);
      bytes.set(plain);
      checksum(bytes.subarray(offset, offset + length));
      shapes.push({ shared, length, offset, status: status() });
    }
  }
}
console.log(JSON.stringify({ warmed, shapes }));
`;

test('after warmChecksum, checksum stays optimised on every payload shape a hand-off gives it (tails of 0-3 bytes, shared or not, on or off a word boundary)', () => {
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', CHILD], { encoding: 'utf8', timeout: 60_000 });
  const { warmed, shapes } = JSON.parse(out.trim().split('\n').at(-1)!) as { warmed: number; shapes: { shared: boolean; length: number; offset: number; status: number }[] };
  assert.ok(warmed & TURBOFANNED, `the warm-up's feedback did not give TurboFan code (status ${warmed.toString(2)}): the test's premise fails`);
  const lost = shapes.find((s) => !(s.status & TURBOFANNED));
  assert.equal(
    lost,
    undefined,
    `checksum lost its optimised code on a ${lost?.length}-byte ${lost?.shared ? 'shared' : 'plain'} payload at offset ${lost?.offset}: warmChecksum must run that path first`,
  );
});
