// Opening the session store's backend from its URL (SQLite file, memory, Redis, PostgreSQL), closing
// it, the SQL stores' own paged reads and batched writes, and their expiry sweep.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Keyv from 'keyv';
import type { KeyvStoreAdapter } from 'keyv';
import { pgPager, rows, sqlitePager, unwrap, type RowPager } from './pages.js';
import { pgWriter, sqliteWriter, type RowWriter } from './batch.js';

export const NAMESPACE = 'socialgate-sessions';
const SQLITE_TABLE = 'sessions';
const PG_TABLE = 'socialgate_sessions';

export async function adapterFor(url: string, timeoutMs: number): Promise<KeyvStoreAdapter | Map<string, unknown>> {
  const scheme = url.split(':')[0];
  switch (scheme) {
    case 'memory':
      return new Map();
    case 'sqlite': {
      const path = resolve(url.replace(/^sqlite:\/\//, ''));
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const { default: KeyvSqlite } = await import('@keyv/sqlite');
      return new KeyvSqlite({ uri: `sqlite://${path}`, table: SQLITE_TABLE, busyTimeout: 5000 }) as unknown as KeyvStoreAdapter;
    }
    case 'redis':
    case 'rediss': {
      const { default: KeyvRedis } = await import('@keyv/redis');
      // No offline queue: during an outage a command fails at once instead of waiting for the server
      // to come back; reconnection goes on in the background, so nothing needs a restart.
      const client = {
        url,
        disableOfflineQueue: true,
        socket: { connectTimeout: Math.max(timeoutMs, 1000), reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
      };
      return new KeyvRedis(client as never, { throwOnConnectError: true, throwOnErrors: true }) as unknown as KeyvStoreAdapter;
    }
    case 'postgres':
    case 'postgresql': {
      const { PostgresAdapter } = await import('./pg-adapter.js');
      // pg's own limits, beside ours: a connection that cannot be made and a query that does not
      // answer give up rather than queue behind a dead server.
      const limit = Math.max(timeoutMs, 1000);
      return new PostgresAdapter(url, PG_TABLE, { connectMs: limit, queryMs: limit }) as unknown as KeyvStoreAdapter;
    }
    default:
      throw new Error(`unknown session store URL scheme "${scheme}:" (use sqlite://PATH, memory://, redis://HOST, postgres://...)`);
  }
}

/**
 * Closes a keyv and its connection. Redis is closed by force: its graceful close waits for the
 * server, and when the server is gone the client goes on reconnecting for ever, holding the
 * process open. Every write was awaited by its caller already, so nothing is dropped.
 */
export async function disconnectKeyv(keyv: Keyv<string>): Promise<void> {
  const store = keyv.store as { disconnect?: (force?: boolean) => Promise<void>; getClient?: () => Promise<unknown> };
  if (store?.constructor?.name !== 'KeyvRedis' || !store.disconnect) return keyv.disconnect();
  // KeyvRedis connects again on the next call after a close. A call still in flight when the app
  // closes (a background check) would open a client nobody closes, reconnecting for ever to a server
  // that may be gone and holding the process open: once closed, every call fails instead.
  store.getClient = () => Promise.reject(new Error('the session store is closed'));
  await store.disconnect(true);
}

/**
 * WAL: a write appends to the log instead of rewriting pages under a lock, readers never wait for a
 * writer, and with synchronous=NORMAL a commit needs no fsync (a crash loses at most the last
 * commits of the log, never the database): writing a session's use costs about a cached read.
 */
export async function walMode(adapter: unknown): Promise<void> {
  const query = (adapter as { query?: (sql: string) => Promise<unknown> }).query;
  if (!query) return;
  await query.call(adapter, 'PRAGMA journal_mode = WAL');
  await query.call(adapter, 'PRAGMA synchronous = NORMAL');
}

/** The SQL stores' own queries: paged reads (keyv's iterators cannot walk large tables; see pages.ts) and batched writes (batch.ts). */
export interface OwnSql {
  readonly pager: RowPager;
  readonly writer: RowWriter;
}

export function sqlFor(url: string, adapter: unknown): OwnSql | undefined {
  const query = (adapter as { query?: (...args: never[]) => Promise<never[]> }).query;
  if (!query) return undefined;
  if (url.startsWith('sqlite:')) return { pager: sqlitePager(query as never, SQLITE_TABLE, NAMESPACE), writer: sqliteWriter(query as never, SQLITE_TABLE) };
  if (/^postgres(ql)?:/.test(url)) return { pager: pgPager(query as never, PG_TABLE, NAMESPACE), writer: pgWriter(query as never, PG_TABLE) };
  return undefined;
}

/** One pass over the rows: each page's expired keys removed in one statement before the next page is read. */
export async function sweepPaged(pager: RowPager): Promise<{ left: number; removed: number }> {
  const now = Date.now();
  let left = 0;
  let removed = 0;
  let expired: string[] = [];
  const flush = async () => {
    await pager.remove(expired);
    removed += expired.length;
    expired = [];
  };
  for await (const [key, text] of rows(pager)) {
    const stored = unwrap(text);
    if (stored?.expires !== undefined && stored.expires <= now) expired.push(key);
    else left++;
    if (expired.length >= 500) await flush();
  }
  await flush();
  return { left, removed };
}
