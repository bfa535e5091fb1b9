/**
 * How a case is identified and named, the one way everywhere: the harness's run, its reports and error messages, the
 * site's results viewer and the labs' analyses. A case is a variant with its params, e.g. `native {size: 512, threads: 2}`.
 */
import type { Params } from './results-schema.ts';

/** A case as every record of results.json names one. */
export interface CaseRef {
  variant: string;
  params: Params;
}

/** A case's params as [key, value] pairs, keys sorted: the order a case's identity never depends on. */
function sortedEntries(params: Params, only?: readonly string[]): [string, string | number][] {
  return Object.keys(params)
    .filter((k) => !only || only.includes(k))
    .sort()
    .map((k) => [k, params[k] as string | number]);
}

/**
 * A stable string key for params (keys sorted), used to match cases and share inputs; `only` keeps just those keys.
 * Escaped (JSON), so two different parameter records never share a key: `{a: "1,b=2"}` and `{a: 1, b: 2}`, or
 * `{n: 1}` and `{n: "1"}`, which the old `k=v,k=v` text could not tell apart.
 */
export function paramsKey(params: Params, only?: readonly string[]): string {
  return JSON.stringify(sortedEntries(params, only));
}

/**
 * The one key of a case: its variant and its params, escaped, so no two cases share it (a variant may hold any
 * character, `|` included). Keys of a run's sets and maps (the plan, the runner, the supervisor's retries) use this.
 */
export function caseKey(entry: CaseRef): string {
  return JSON.stringify([entry.variant, sortedEntries(entry.params)]);
}

/**
 * The params as the text a bootstrap seed is derived from (`k=v,k=v`, keys sorted). Frozen: every committed run's
 * intervals were resampled from seeds derived from this text, so a validator recomputes them only while it stays as it
 * is. Not an identity: two records can share it, and then only share a seed. Match cases with caseKey or sameCase.
 */
export function paramsSeedText(params: Params): string {
  return sortedEntries(params)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** A case's params as people read them, "size=512, threads=2" (keys sorted); "" when there are none. */
export function paramsLabel(params: Params): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${String(params[key])}`)
    .join(', ');
}

/** "native (size=512, threads=2)", or just "inline" for a case without params. */
export function caseLabel(entry: CaseRef): string {
  const label = paramsLabel(entry.params);
  return label ? `${entry.variant} (${label})` : entry.variant;
}

/** True when two parameter records hold the same keys with the same values (key order does not matter). */
export function sameParams(a: Params, b: Params): boolean {
  const keysA = Object.keys(a);
  return keysA.length === Object.keys(b).length && keysA.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/** True when two records name the same case: the same variant and the same params. */
export function sameCase(a: CaseRef, b: CaseRef): boolean {
  return a.variant === b.variant && sameParams(a.params, b.params);
}
