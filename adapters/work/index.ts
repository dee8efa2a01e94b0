// Opens the background layer a config names: the work queue, the work store and the default
// events log. With a SQLite or memory session store, everything is in one SQLite file beside the
// sessions (memory: an in-memory database) and the queue runs in this process.
import { millisSetting } from '../../engine/config.js';
import { dirname, join, resolve } from 'node:path';
import type { Config, Events, Logger, WorkLayer, WorkQueue, WorkStore } from '../../engine/types.js';
import { deferredParts } from './deferred.js';
import { sessionKeyFor, storeTimeoutMs } from '../store/index.js';
import { boundedQueue, boundedStore } from './bounded.js';
import { sealerFor } from './sealer.js';
import { SqliteDb } from './sqlite-db.js';
import { QUEUE_SCHEMA, SqliteWorkQueue } from './sqlite-queue.js';
import { STORE_SCHEMA, sqliteWorkStore } from './sqlite-store.js';

export interface OpenedWork extends WorkLayer {
  close(): Promise<void>;
}

/** Where the in-process engine keeps its file for a session store URL. */
export function workFileFor(config: Config): string {
  const store = config.store;
  if (store.startsWith('memory:')) return ':memory:';
  if (store.startsWith('sqlite:')) return join(dirname(resolve(store.replace(/^sqlite:\/\//, ''))), 'work.sqlite');
  return join(resolve(config.dataDir), 'work.sqlite');
}

/**
 * Synchronous: connections open in the background and every call waits for them. With a Redis or
 * PostgreSQL session store the work is shared by every instance on it (BullMQ); otherwise it is
 * this process's, in SQLite.
 */
export function openWork(config: Config, log: Logger): OpenedWork {
  const sealer = sealerFor(sessionKeyFor(config, !config.store.startsWith('memory:')));
  const scheme = config.store.split(':')[0];
  const lockMs = lockMsOf(config.extra);
  const timeoutMs = storeTimeoutMs(config.extra);
  if (scheme === 'redis' || scheme === 'rediss') {
    const parts = deferredParts('bullmq-redis', sealer, async () => {
      const [{ BullWorkQueue }, { redisWorkStore }] = await Promise.all([import('./bullmq-queue.js'), import('./redis-store.js')]);
      const queue = new BullWorkQueue({ connection: redisConnection(config.store), engine: 'bullmq-redis', log, lockMs });
      return bounded(queue, redisWorkStore(config.store, sealer, timeoutMs), timeoutMs);
    });
    return layer(parts.queue, parts.store);
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const parts = deferredParts('bullmq-postgres', sealer, async () => {
      const [
        { BullWorkQueue, noListenAfterClose },
        { pgWorkStore },
        { createPostgresBackend, PostgresConnection },
        { ListeningClient, keepClientErrorsHeard },
      ] = await Promise.all([import('./bullmq-queue.js'), import('./pg-store.js'), import('bullmq'), import('../store/pg-client.js')]);
      // BullMQ's pools check clients out without listening for their errors: ours listen, and its
      // LISTEN client listens from its connect through its close (pg-client.ts)
      keepClientErrorsHeard();
      noListenAfterClose(PostgresConnection);
      const connection = { connectionString: config.store, migrate: true, Client: ListeningClient };
      const queue = new BullWorkQueue({ connection, backend: createPostgresBackend, engine: 'bullmq-postgres', log, lockMs });
      return bounded(queue, pgWorkStore(config.store, sealer, timeoutMs), timeoutMs);
    });
    return layer(parts.queue, parts.store);
  }
  const db = new SqliteDb(workFileFor(config), STORE_SCHEMA + QUEUE_SCHEMA);
  // A local file is not frozen by an outage; one locked by another process, full or unreadable
  // answers 503 too (SQLite's own busy wait, 5 s, is the bound, not the network store timeout)
  return layer(new SqliteWorkQueue(db, { log }), boundedStore(sqliteWorkStore(db, sealer), SQLITE_BOUND_MS));
}

const SQLITE_BOUND_MS = 6000;

/**
 * Every call of a network store bounded by the store timeout; the store opened (its schema made)
 * before the first call is bounded, so the first request does not pay for it.
 */
async function bounded(queue: WorkQueue, store: WorkStore, ms: number): Promise<{ queue: WorkQueue; store: WorkStore }> {
  await store.ready();
  return { queue: boundedQueue(queue, ms), store: boundedStore(store, ms) };
}

function layer(queue: WorkQueue, store: WorkStore): OpenedWork {
  return {
    queue,
    store,
    events: eventLog(store),
    async close() {
      await queue.close();
      await store.close();
    },
  };
}

/** How long a dead instance's running work stays locked before another instance takes it over. */
export function lockMsOf(extra: Readonly<Record<string, string>>): number {
  return millisSetting(extra, 'WORK_LOCK_MS', 30_000, 500, 600_000);
}

/** BullMQ's workers block on Redis: their connection must retry without a per-request limit. */
function redisConnection(url: string): Record<string, unknown> {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    username: parsed.username || undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: Number(parsed.pathname.slice(1) || 0),
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/**
 * Until the events module installs its outbox: events kept in the work store's `events` list,
 * deduplicated by id, so nothing emitted before then is lost.
 */
export function eventLog(store: WorkStore): Events {
  return { emit: async (event) => void (await store.append('events', [{ key: event.id, value: event }])) };
}
