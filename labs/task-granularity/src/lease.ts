/**
 * Shared, reference-counted resources: the cases of one run that need the same pool (same worker file, same size)
 * share one, so a sweep of nine chunk sizes starts two threads, not eighteen. The first lease creates it, the last
 * release destroys it. Creating and destroying are never timed (they happen in the cases' setup and teardown).
 */
interface Entry<T> {
  value: Promise<T>;
  users: number;
  destroy: (value: T) => Promise<void>;
}

const entries = new Map<string, Entry<unknown>>();

export interface Lease<T> {
  value: T;
  release(): Promise<void>;
}

export async function lease<T>(key: string, create: () => Promise<T>, destroy: (value: T) => Promise<void>): Promise<Lease<T>> {
  let entry = entries.get(key) as Entry<T> | undefined;
  if (!entry) {
    entry = { value: create(), users: 0, destroy };
    entries.set(key, entry as Entry<unknown>);
  }
  entry.users++;
  let value: T;
  try {
    value = await entry.value;
  } catch (error) {
    entry.users--;
    if (entries.get(key) === entry) entries.delete(key);
    throw error;
  }
  let released = false;
  return {
    value,
    async release() {
      if (released) return;
      released = true;
      const current = entry as Entry<T>;
      if (--current.users > 0) return;
      if (entries.get(key) === current) entries.delete(key);
      await current.destroy(value);
    },
  };
}

/** How many shared resources are alive (tests check that a run releases everything). */
export function liveLeases(): number {
  return entries.size;
}
