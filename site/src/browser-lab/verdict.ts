/** "faster", "slower" or "no clear difference", from where a ratio's 95 % interval lies against 1. */
export function verdict(ci: readonly [number, number]): string {
  if (ci[0] > 1) return 'faster';
  if (ci[1] < 1) return 'slower';
  return 'no clear difference';
}
