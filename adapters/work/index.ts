// Opens the background layer a config names: the work queue, the work store and the default
// events log. With a SQLite or memory session store, everything is in one SQLite file beside the
// sessions (memory: an in-memory database) and the queue runs in this process.
import { dirname, join, resolve } from 'node:path';
import type { Config, Events, Logger, WorkLayer, WorkStore } from '../../engine/types.js';
import { sessionKeyFor } from '../store/index.js';
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

/** Synchronous: the file opens in the background and every call waits for it. */
export function openWork(config: Config, log: Logger): OpenedWork {
  const db = new SqliteDb(workFileFor(config), STORE_SCHEMA + QUEUE_SCHEMA);
  const store = sqliteWorkStore(db, sealerFor(sessionKeyFor(config, !config.store.startsWith('memory:'))));
  const queue = new SqliteWorkQueue(db, { log });
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

/**
 * Until the events module installs its outbox: events kept in the work store's `events` list,
 * deduplicated by id, so nothing emitted before then is lost.
 */
export function eventLog(store: WorkStore): Events {
  return { emit: async (event) => void (await store.append('events', [{ key: event.id, value: event }])) };
}
