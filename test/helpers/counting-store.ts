// A session store that counts what it is asked (single reads and writes, and the size of each
// batched write), to see what a change of the engine makes the store do: a cached record read
// again, a use written alone instead of in a batch.
import type { SessionStore } from '../../engine/types.js';

export interface StoreCounts {
  get: number;
  set: number;
  /** The number of records in each changeMany call, in order. */
  readonly changeMany: number[];
}

export function countingStore(inner: SessionStore): { store: SessionStore; counts: StoreCounts } {
  const counts: StoreCounts = { get: 0, set: 0, changeMany: [] };
  const store: SessionStore = {
    get: (id) => (counts.get++, inner.get(id)),
    set: (record) => (counts.set++, inner.set(record)),
    delete: (id) => inner.delete(id),
    list: () => inner.list(),
    ready: () => inner.ready(),
    close: () => inner.close(),
    ...(inner.changeMany && { changeMany: (ids, change) => (counts.changeMany.push(ids.length), inner.changeMany!(ids, change)) }),
  };
  return { store, counts };
}
