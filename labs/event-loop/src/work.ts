/**
 * The CPU-bound work behind the lab's `/derive` endpoint, shared by the baseline, the exercise and the solution.
 *
 * A request `GET /derive?account=N` derives a ring of KEYS_PER_REQUEST keys for account N with PBKDF2-HMAC-SHA256,
 * the deliberately slow password-hashing function a login or key-management service runs on every request.
 * It is real work, easy to explain, deterministic, and it comes in pieces (one key at a time), so it can be
 * chunked, sent to a worker pool, or handed to Node's own libuv threadpool through the async `crypto.pbkdf2`.
 */
import { pbkdf2Sync } from 'node:crypto';

/**
 * PBKDF2 iterations per key. About 2.6 ms per key on the course machine (Node 24, 2 vCPUs), so one request
 * (8 keys) keeps a core busy for about 20 ms: long enough to block the event loop visibly, short enough for a quick run.
 */
export const ITERATIONS_PER_KEY = 20_000;
/** Keys derived per request. */
export const KEYS_PER_REQUEST = 8;
/** Bytes per derived key (SHA-256's output size). */
export const KEY_BYTES = 32;
export const DIGEST = 'sha256';

/** The largest account number the endpoint accepts. */
export const MAX_ACCOUNT = 1_000_000_000;

/** The (synthetic, deterministic) password of an account. */
export function passwordFor(account: number): string {
  return `correct horse battery staple #${account}`;
}

/** The salt of key `index` of an account's ring: unique per account and key, as salts must be. */
export function saltFor(account: number, index: number): string {
  return `course-salt:${account}:${index}`;
}

/** Derives one key of the ring, synchronously (blocks the calling thread for about 2.6 ms). Hex string. */
export function deriveKeySync(account: number, index: number): string {
  return pbkdf2Sync(passwordFor(account), saltFor(account, index), ITERATIONS_PER_KEY, KEY_BYTES, DIGEST).toString('hex');
}

/** The response body: the account, then one hex key per line. Every variant must produce exactly these bytes. */
export function formatBody(account: number, keys: readonly string[]): string {
  return `account ${account}\n${keys.join('\n')}\n`;
}

/** The whole ring, synchronously: the expected output of `/derive?account=N`. */
export function deriveRingSync(account: number): string {
  const keys: string[] = [];
  for (let i = 0; i < KEYS_PER_REQUEST; i++) keys.push(deriveKeySync(account, i));
  return formatBody(account, keys);
}

/** Parses the `account` query parameter; null when it is not an integer in 0..MAX_ACCOUNT. */
export function parseAccount(value: string | null): number | null {
  if (value === null || !/^\d{1,10}$/.test(value)) return null;
  const account = Number(value);
  return account <= MAX_ACCOUNT ? account : null;
}

/**
 * What every variant of the server implements: derive an account's ring and return the response body.
 * `close` releases whatever the handler started (a pool's threads).
 */
export interface RingHandler {
  derive(account: number): Promise<string>;
  close(): Promise<void>;
}
