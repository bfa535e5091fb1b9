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

/** A stable string key for params (keys sorted), used to match cases and share inputs; `only` keeps just those keys. */
export function paramsKey(params: Params, only?: string[]): string {
  const keys = Object.keys(params)
    .filter((k) => !only || only.includes(k))
    .sort();
  return keys.map((k) => `${k}=${params[k]}`).join(',');
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
