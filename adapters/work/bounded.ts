// The background layer on a network store (Redis, PostgreSQL), each call bounded by the store
// timeout (SOCIALGATE_STORE_TIMEOUT_MS): a route that needs the work store answers 503
// StoreUnavailable with Retry-After while the server is frozen or down, as the session routes do,
// instead of hanging or failing as a 500. Background work meets the same error and is put off
// without spending an attempt (the queues treat StoreUnavailable so). Starting and closing are not
// bounded: they wait for the server as long as it takes.
import type { WorkQueue, WorkStore } from '../../engine/types.js';
import { withinStoreTime } from '../store/bounded.js';

export function boundedStore(store: WorkStore, ms: number): WorkStore {
  const name = `work store (${store.engine})`;
  const bound = <T>(what: string, call: () => Promise<T>) => withinStoreTime(name, what, ms, Promise.resolve().then(call));
  return {
    engine: store.engine,
    get: (bucket, key) => bound('read', () => store.get(bucket, key)),
    put: (bucket, key, value) => bound('write', () => store.put(bucket, key, value)),
    update: (bucket, key, change) => bound('write', () => store.update(bucket, key, change)),
    delete: (bucket, key) => bound('delete', () => store.delete(bucket, key)),
    list: (bucket, options) => bound('read', () => store.list(bucket, options)),
    append: (list, entries, withDoc) => bound('write', () => store.append(list, entries, withDoc)),
    read: (list, options) => bound('read', () => store.read(list, options)),
    count: (list) => bound('read', () => store.count(list)),
    last: (list) => bound('read', () => store.last(list)),
    trim: (list, keep) => bound('delete', () => store.trim(list, keep)),
    dropList: (list) => bound('delete', () => store.dropList(list)),
    seal: store.seal,
    open: store.open,
    ready: () => bound('readiness check', () => store.ready()).catch((error: Error) => ({ ok: false, detail: error.message })),
    close: () => store.close(),
  };
}

export function boundedQueue(queue: WorkQueue, ms: number): WorkQueue {
  const name = `work queue (${queue.engine})`;
  const bound = <T>(what: string, call: () => Promise<T>) => withinStoreTime(name, what, ms, Promise.resolve().then(call));
  return {
    engine: queue.engine,
    define: (kind, handler, options) => queue.define(kind, handler, options),
    add: (kind, id, data, options) => bound('write', () => queue.add(kind, id, data, options)),
    remove: (kind, id) => bound('delete', () => queue.remove(kind, id)),
    start: () => queue.start(),
    close: () => queue.close(),
  };
}
