// The WorkStore on Redis (the session store's server), for several instances: documents in one
// hash per bucket; a list as a hash of key → seq (the dedupe) beside a hash of seq → value and a
// sorted set of seqs (the order). Read-modify-writes use WATCH/MULTI and retry when another
// instance wrote in between, so an append and its companion document commit together or not.
import { Redis } from 'ioredis';
import type { DocWrite, ListEntry, WorkStore } from '../../engine/types.js';
import type { Sealer } from './sealer.js';

const NS = 'socialgate:work';
const docs = (bucket: string) => `${NS}:docs:${bucket}`;
const keysOf = (list: string) => `${NS}:list:${list}:keys`;
const valuesOf = (list: string) => `${NS}:list:${list}:values`;
const orderOf = (list: string) => `${NS}:list:${list}:order`;
const seqOf = (list: string) => `${NS}:list:${list}:seq`;
const TRIES = 50;

export function redisWorkStore(url: string, sealer: Sealer, timeoutMs = 500): WorkStore {
  // A command the server does not answer fails after the store timeout, so a frozen server does
  // not hold this process's transactions (which take turns on the connection) until it thaws.
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true, commandTimeout: timeoutMs });
  redis.on('error', () => undefined); // surfaced by the failing call and ready()
  const parse = <T>(text: string | null | undefined) => (text == null ? undefined : (JSON.parse(text) as T));

  // WATCH belongs to the connection: this process's transactions take turns on it.
  let turn: Promise<unknown> = Promise.resolve();
  function optimistic<T>(watch: string[], body: (multi: ReturnType<Redis['multi']>) => Promise<T>): Promise<T> {
    const next = turn.then(
      () => watched(watch, body),
      () => watched(watch, body),
    );
    turn = next.catch(() => undefined);
    return next;
  }

  /** WATCH the keys, read, queue writes; retried when another client changed a watched key. */
  async function watched<T>(watch: string[], body: (multi: ReturnType<Redis['multi']>) => Promise<T>): Promise<T> {
    for (let i = 0; i < TRIES; i++) {
      await redis.watch(...watch);
      const multi = redis.multi();
      let result: T;
      try {
        result = await body(multi);
      } catch (error) {
        await redis.unwatch();
        throw error;
      }
      if ((await multi.exec()) !== null) return result;
    }
    throw new Error('work store: too much contention on ' + watch.join(', '));
  }

  return {
    engine: 'redis',
    get: async <T>(bucket: string, key: string) => parse<T>(await redis.hget(docs(bucket), key)),
    put: async (bucket, key, value) => void (await redis.hset(docs(bucket), key, JSON.stringify(value))),
    update: <T>(bucket: string, key: string, change: (current: T | undefined) => T | undefined) =>
      optimistic([docs(bucket)], async (multi) => {
        const current = parse<T>(await redis.hget(docs(bucket), key));
        const next = change(current);
        if (next === undefined) return current;
        multi.hset(docs(bucket), key, JSON.stringify(next));
        return next;
      }),
    delete: async (bucket, key) => (await redis.hdel(docs(bucket), key)) > 0,
    list: async <T>(bucket: string, options: { after?: string; limit?: number } = {}) => {
      const all = await redis.hgetall(docs(bucket));
      const keys = Object.keys(all)
        .filter((k) => k > (options.after ?? ''))
        .sort();
      return keys.slice(0, options.limit ?? keys.length).map((key) => ({ key, value: JSON.parse(all[key]) as T }));
    },
    append: (list, entries, withDoc) => {
      const watched = [keysOf(list), seqOf(list), ...(withDoc ? [docs(withDoc(0).bucket)] : [])];
      return optimistic(watched, async (multi) => {
        const unique = [...new Map(entries.map((e) => [e.key, e])).values()];
        const known = unique.length ? await redis.hmget(keysOf(list), ...unique.map((e) => e.key)) : [];
        const fresh = unique.filter((_, i) => known[i] === null);
        let seq = Number((await redis.get(seqOf(list))) ?? 0);
        for (const entry of fresh) {
          seq++;
          multi.hset(keysOf(list), entry.key, String(seq));
          multi.hset(valuesOf(list), String(seq), JSON.stringify(entry.value));
          multi.zadd(orderOf(list), seq, String(seq));
        }
        multi.set(seqOf(list), String(seq));
        if (withDoc) {
          const doc: DocWrite = withDoc(fresh.length);
          multi.hset(docs(doc.bucket), doc.key, JSON.stringify(doc.value));
        }
        return fresh.length;
      });
    },
    read: async <T>(list: string, options: { after?: number; limit?: number } = {}): Promise<ListEntry<T>[]> => {
      const seqs = await redis.zrangebyscore(orderOf(list), `(${options.after ?? 0}`, '+inf', 'LIMIT', 0, options.limit ?? -1);
      if (!seqs.length) return [];
      const values = await redis.hmget(valuesOf(list), ...seqs);
      return seqs.map((seq, i) => ({ seq: Number(seq), value: JSON.parse(values[i] ?? 'null') as T }));
    },
    count: (list) => redis.hlen(keysOf(list)),
    last: async (list) => Number((await redis.get(seqOf(list))) ?? 0),
    /** Values and order go; the key → seq map stays, so a trimmed key is still known and not appended again. */
    trim: async (list, keep) => {
      const below = Number((await redis.get(seqOf(list))) ?? 0) - Math.max(1, keep);
      if (below <= 0) return;
      const seqs = await redis.zrangebyscore(orderOf(list), '-inf', String(below));
      if (!seqs.length) return;
      await redis
        .multi()
        .hdel(valuesOf(list), ...seqs)
        .zremrangebyscore(orderOf(list), '-inf', String(below))
        .exec();
    },
    dropList: async (list) => void (await redis.del(keysOf(list), valuesOf(list), orderOf(list), seqOf(list))),
    seal: sealer.seal,
    open: sealer.open,
    ready: async () => {
      try {
        await redis.ping();
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: error instanceof Error ? error.message : String(error) };
      }
    },
    close: async () => void (await redis.quit().catch(() => redis.disconnect())),
  };
}
