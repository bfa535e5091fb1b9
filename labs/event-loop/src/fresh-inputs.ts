/**
 * Fresh accounts for every measured sample, and the check of a sample's answers without paying for the whole
 * expected output (which costs as much as the work measured).
 *
 * A memoising handler (a Map from account to body) passes every output check when each sample repeats the same
 * burst, and then measures a cache instead of the work. Here sample s of a run's case k asks for accounts no other
 * request of the run asks for (the judge numbers the samples, judge-outputs.ts), all of the same cost: PBKDF2's cost
 * does not depend on the account. Checking every body against deriveRingSync would double the run's CPU time, so each
 * sample's answers are checked for shape and account, and one body, drawn at random after the answers came back, in
 * full: a handler that fakes a fraction f of its answers passes a run of S samples with probability (1 - f)^S.
 */
import { randomInt } from 'node:crypto';
import { type Comparison, differingExcerpts } from '@parallel-course/harness';
import { deriveRingSync, KEY_BYTES, KEYS_PER_REQUEST, MAX_ACCOUNT } from './work.ts';

/** The accounts of burst number `burst` (0 is the burst the check verifies in full), `n` requests each. */
export function accountsOf(burst: number, n: number): number[] {
  const first = 1000 + burst * n;
  if (first + n - 1 > MAX_ACCOUNT) throw new RangeError(`burst ${burst} of ${n} requests runs past account ${MAX_ACCOUNT}`);
  return Array.from({ length: n }, (_, i) => first + i);
}

/**
 * The CSPRNG's draw as it was when the lab loaded, before any learner module: a learner module that replaces
 * node:crypto's randomInt (and syncs the builtin's ES exports) cannot choose which body is checked in full.
 */
const drawSecurely: (n: number) => number = randomInt;

const KEY_LINE = new RegExp(`^[0-9a-f]{${KEY_BYTES * 2}}$`);

/** `expected` is a description of the shape, or (`bytes`) the exact body, shown from its first difference. */
function mismatch(index: number, expected: string, actual: unknown, bytes = false): Comparison {
  const text = typeof actual === 'string' ? actual : JSON.stringify(actual) ?? String(actual);
  const shown = bytes ? differingExcerpts(expected, text) : { expected: expected.slice(0, 80), actual: text.slice(0, 80) };
  return { equal: false, firstMismatch: { index, expected: shown.expected, actual: shown.actual }, maxAbsError: null, maxRelError: null };
}

/** Every body's account line and key shapes, and one random body's bytes. */
export function spotCheck(accounts: readonly number[], output: unknown, draw: (n: number) => number = drawSecurely): Comparison {
  if (!Array.isArray(output) || output.length !== accounts.length) {
    return mismatch(0, `${accounts.length} response bodies`, Array.isArray(output) ? `${output.length} bodies` : output);
  }
  for (const [i, body] of output.entries()) {
    const lines = typeof body === 'string' ? body.split('\n') : [];
    const shaped = lines.length === KEYS_PER_REQUEST + 2 && lines[0] === `account ${accounts[i]}` && lines.at(-1) === '' && lines.slice(1, -1).every((l) => KEY_LINE.test(l));
    if (!shaped) return mismatch(i, `account ${accounts[i]} and ${KEYS_PER_REQUEST} hex keys`, body);
  }
  const i = draw(accounts.length);
  const expected = deriveRingSync(accounts[i] as number);
  if (output[i] !== expected) return mismatch(i, expected, output[i], true);
  return { equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null };
}
