// The background layer for Redis or PostgreSQL, loaded when first needed: BullMQ, ioredis and pg
// cost some 30 MB of memory once imported, and the default (SQLite, in process) never needs them.
// Kinds defined before the load are kept and defined on the loaded queue when it starts; every other
// call waits for the load. Secrets are sealed at once (the sealer needs no server).
import type { AddOptions, DefineOptions, ListEntry, WorkHandler, WorkQueue, WorkStore, DocWrite } from '../../engine/types.js';
import type { Sealer } from './sealer.js';

export interface Loaded {
  readonly queue: WorkQueue;
  readonly store: WorkStore;
}

/** How long a queue call waits for the queue's start (its queues made, PostgreSQL's tables migrated) before going ahead. */
const START_WAIT_MS = 10_000;

export function deferredParts(engine: string, sealer: Sealer, load: () => Promise<Loaded>): Loaded & { close(): Promise<void> } {
  let loading: Promise<Loaded> | undefined;
  let starting: Promise<void> | undefined;
  const loaded = () => (loading ??= load());
  /** The loaded queue once started: a call made while it starts is not bounded by the store timeout for the start's sake. */
  const started = async () => {
    const parts = await loaded();
    if (starting) await Promise.race([starting.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, START_WAIT_MS).unref())]);
    return parts.queue;
  };
  const defined: [string, WorkHandler<unknown>, DefineOptions | undefined][] = [];
  const queue: WorkQueue = {
    engine,
    define: (kind, handler, options) => void defined.push([kind, handler as WorkHandler<unknown>, options]),
    add: async <T>(kind: string, id: string, data: T, options?: AddOptions) => (await started()).add(kind, id, data, options),
    remove: async (kind, id) => (await started()).remove(kind, id),
    start() {
      starting ??= (async () => {
        const real = (await loaded()).queue;
        for (const [kind, handler, options] of defined) real.define(kind, handler, options);
        await real.start();
      })();
      return starting;
    },
    close: async () => void (loading && (await (await loading).queue.close())),
  };
  const store: WorkStore = {
    engine,
    get: async <T>(bucket: string, key: string) => (await loaded()).store.get<T>(bucket, key),
    put: async (bucket, key, value) => (await loaded()).store.put(bucket, key, value),
    update: async <T>(bucket: string, key: string, change: (current: T | undefined) => T | undefined) => (await loaded()).store.update<T>(bucket, key, change),
    delete: async (bucket, key) => (await loaded()).store.delete(bucket, key),
    list: async <T>(bucket: string, options?: { after?: string; limit?: number }) => (await loaded()).store.list<T>(bucket, options),
    append: async (list: string, entries: readonly { key: string; value: unknown }[], withDoc?: (added: number) => DocWrite) =>
      (await loaded()).store.append(list, entries, withDoc),
    read: async <T>(list: string, options?: { after?: number; limit?: number }): Promise<ListEntry<T>[]> => (await loaded()).store.read<T>(list, options),
    count: async (list) => (await loaded()).store.count(list),
    last: async (list) => (await loaded()).store.last(list),
    trim: async (list, keep) => (await loaded()).store.trim(list, keep),
    dropList: async (list) => (await loaded()).store.dropList(list),
    seal: sealer.seal,
    open: sealer.open,
    ready: async () => (await loaded()).store.ready(),
    close: async () => void (loading && (await (await loading).store.close())),
  };
  return { queue, store, close: async () => void (await queue.close(), await store.close()) };
}
