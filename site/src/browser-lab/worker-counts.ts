/** Worker counts 1..P for a pool sweep: every count up to 8, then powers of two and P itself. */
export function workerCounts(p: number): number[] {
  const counts = new Set<number>();
  for (let w = 1; w <= p; w++) if (w <= 8 || (w & (w - 1)) === 0 || w === p) counts.add(w);
  return [...counts];
}
