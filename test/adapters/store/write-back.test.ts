// Uses are written back off the request path in one store call per flush. On the
// SQL stores (SQLite here, PostgreSQL through onEachSharedStore) that call reads the batch's rows in
// one query and writes them in one compare-and-set statement (one transaction) per 500 records,
// counted by wrapping the drivers' query functions; every record still decrypts through the normal
// get. A record another writer changes between the batch's read and its write (a state change, a
// revocation) is left as that writer made it, and a deleted session is never recreated. Redis has no
// batch: the same uses go one record at a time.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { createStore } from '../../../adapters/store/keyv.js';
import { encryptingCodec } from '../../../adapters/store/crypto.js';
import { expiryFor } from '../../../adapters/store/index.js';
import { createLogger } from '../../../engine/log.js';
import { createMetrics } from '../../../engine/metrics.js';
import { Sessions } from '../../../engine/sessions.js';
import type { SessionRecord, SessionStore } from '../../../engine/types.js';
import { countingStore } from '../../helpers/counting-store.js';
import { fakeUpstream } from '../../helpers/fake-upstream.js';
import { onEachSharedStore } from '../../support/shared-servers.js';

const SESSIONS = 1_000;
/** One key for the run: a PostgreSQL table written with one key refuses another. */
const KEY = randomBytes(32);
const MINUTE = 60_000;

/** Every statement the SQL drivers run in this process, and a hook run just before the next batch write. */
const spy = { statements: [] as { sql: string; rows: number }[], beforeWrite: undefined as (() => Promise<void>) | undefined };
const isBatchWrite = (sql: string) => /^(WITH batch|UPDATE .* unnest)/s.test(sql);
const isBatchRead = (sql: string) => /^SELECT key, value FROM \S+ WHERE key (IN|= ANY)/.test(sql);

/** The hook once: its own statements run unhooked. */
function takeHook(): (() => Promise<void>) | undefined {
  const hook = spy.beforeWrite;
  spy.beforeWrite = undefined;
  return hook;
}

function spyOnSqlite(): void {
  const all = sqlite3.Database.prototype.all;
  // @keyv/sqlite binds `all` when it connects: wrapped before any store opens
  sqlite3.Database.prototype.all = function (this: sqlite3.Database, sql: string, ...rest: unknown[]) {
    const params = rest.slice(0, -1);
    const done = rest[rest.length - 1] as (error: Error | null, rows?: unknown[]) => void;
    spy.statements.push({ sql, rows: isBatchWrite(sql) ? params.length / 3 : params.length });
    const hook = isBatchWrite(sql) ? takeHook() : undefined;
    if (!hook) return all.call(this, sql, ...params, done);
    hook().then(() => all.call(this, sql, ...params, done), done);
    return this;
  } as typeof all;
}

function spyOnPg(): void {
  const query = pg.Pool.prototype.query;
  pg.Pool.prototype.query = async function (this: pg.Pool, sql: string, values?: unknown[]) {
    spy.statements.push({ sql, rows: isBatchWrite(sql) ? (values![0] as unknown[]).length : (values?.length ?? 0) });
    const hook = isBatchWrite(sql) ? takeHook() : undefined;
    if (hook) await hook();
    return (query as (sql: string, values?: unknown[]) => Promise<pg.QueryResult>).call(this, sql, values);
  } as typeof query;
}

spyOnSqlite();
spyOnPg();

/** A store as the service opens it (encrypting codec, idle expiry), with its calls counted. */
async function countedStore(url: string) {
  // a generous timeout: this test is about what is written, and runs beside others on a busy machine
  const inner = await createStore(url, { codec: encryptingCodec(KEY), ttl: expiryFor(90), sweepMs: 0, timeoutMs: 10_000 });
  const { store: counted, counts } = countingStore(inner);
  let flushed: Promise<unknown> | undefined;
  // the last batch's promise, so a test can wait for the write it caused
  const store: SessionStore = counted.changeMany ? { ...counted, changeMany: (ids, change) => (flushed = counted.changeMany!(ids, change)) } : counted;
  return { inner, store, counts, flushed: () => flushed };
}

function sessionsOn(store: SessionStore, now: () => number) {
  return new Sessions({
    upstream: fakeUpstream(),
    store,
    metrics: createMetrics(),
    log: createLogger('silent'),
    cacheSize: SESSIONS + 10,
    recordTtlMs: 30_000,
    throttleBackoffSeconds: 60,
    useWriteDelayMs: 20,
    now,
    throttled: () => undefined,
    challenged: () => false,
  });
}

const recordOf = (i: number, lastUsedAt: number): SessionRecord => ({
  id: `write-back-${i}`,
  account: { pk: String(1000 + i), username: `u${i}` },
  settings: { authorization_data: { ds_user_id: String(1000 + i) } },
  state: 'active',
  createdAt: lastUsedAt,
  lastUsedAt,
});

async function fill(store: SessionStore, count: number, lastUsedAt: number): Promise<SessionRecord[]> {
  const records = Array.from({ length: count }, (_, i) => recordOf(i, lastUsedAt));
  for (let i = 0; i < count; i += 100) await Promise.all(records.slice(i, i + 100).map((record) => store.set(record)));
  return records;
}

/** Each session called once (its first use after two idle minutes), then the flush awaited. */
async function useEach(
  sessions: Sessions,
  records: readonly SessionRecord[],
  flushed: () => Promise<unknown> | undefined,
  counts: { changeMany: number[] },
): Promise<void> {
  await Promise.all(records.map((record) => sessions.client(record).call('account_info', {})));
  const batched = counts.changeMany.length;
  const deadline = Date.now() + 10_000;
  while (counts.changeMany.length === batched && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await flushed();
  await new Promise((resolve) => setImmediate(resolve)); // the cache settles after the store answers
}

async function usedOnce(t: Test, url: string): Promise<void> {
  const { inner, store, counts, flushed } = await countedStore(url);
  // closed before the test ends, not at teardown: the shared server stops at teardown
  try {
    const now = Date.now();
    const records = await fill(store, SESSIONS, now - 2 * MINUTE);
    const sessions = sessionsOn(store, () => now);
    await Promise.all(records.map((record) => sessions.find(record.id))); // first reads, before the uses
    counts.get = counts.set = 0;
    spy.statements = [];

    await useEach(sessions, records, flushed, counts);
    t.same(counts.changeMany, [SESSIONS], 'the whole flush in one store call');
    t.same({ get: counts.get, set: counts.set }, { get: 0, set: 0 }, 'no record read or written one at a time');
    const writes = spy.statements.filter((s) => isBatchWrite(s.sql));
    t.same(
      writes.map((s) => s.rows),
      [500, 500],
      'one write statement (one transaction) per 500 records',
    );
    t.equal(spy.statements.filter((s) => isBatchRead(s.sql)).length, 2, 'one read query per 500 records');
    t.equal(spy.statements.length, 4, 'nothing else');

    const stored = await Promise.all(records.map((record) => inner.get(record.id)));
    t.equal(stored.filter((record) => record?.lastUsedAt === now).length, SESSIONS, 'every use written, and every record decrypts through get');
    t.same(stored[7], { ...records[7], lastUsedAt: now }, 'nothing else of the record changed');
    await sessions.close();
  } finally {
    await inner.close();
  }
}

/** Redis has no changeMany: the same uses, one read and one write each. */
async function usedOnceOneByOne(t: Test, url: string): Promise<void> {
  const { inner, store, counts } = await countedStore(url);
  // closed before the test ends, not at teardown: the shared server stops at teardown
  try {
    t.equal(store.changeMany, undefined);
    const now = Date.now();
    const records = await fill(store, 100, now - 2 * MINUTE);
    const sessions = sessionsOn(store, () => now);
    await Promise.all(records.map((record) => sessions.client(record).call('account_info', {})));
    counts.get = counts.set = 0;
    await sessions.close(); // writes what was used
    t.same(counts, { get: 100, set: 100, changeMany: [] });
    const stored = await Promise.all(records.map((record) => inner.get(record.id)));
    t.equal(stored.filter((record) => record?.lastUsedAt === now).length, 100, 'every use written');
  } finally {
    await inner.close();
  }
}

async function changedMeanwhile(t: Test, url: string): Promise<void> {
  const { inner, store, counts, flushed } = await countedStore(url);
  // closed before the test ends, not at teardown: the shared server stops at teardown
  try {
    const now = Date.now();
    const earlier = now - 2 * MINUTE;
    const [kept, challenged, revoked, deleted] = await fill(store, 4, earlier);
    const sessions = sessionsOn(store, () => now);
    await Promise.all([kept, challenged, revoked, deleted].map((record) => sessions.find(record!.id)));
    await inner.delete(deleted!.id); // gone before the flush reads
    // between the batch's read and its write, another writer changes one record and deletes another
    spy.beforeWrite = async () => {
      await inner.set({ ...challenged!, state: 'challenge' });
      await inner.delete(revoked!.id);
    };

    await useEach(sessions, [kept!, challenged!, revoked!, deleted!], flushed, counts);
    t.equal(spy.beforeWrite, undefined, 'the other writer ran between read and write');
    t.match(await inner.get(kept!.id), { lastUsedAt: now }, 'an untouched record is written');
    t.match(await inner.get(challenged!.id), { state: 'challenge', lastUsedAt: earlier }, "the other writer's state change is not overwritten");
    t.equal(await inner.get(revoked!.id), undefined, 'a record revoked meanwhile is not written back');
    t.equal(await inner.get(deleted!.id), undefined, 'a deleted session is not recreated');
    t.equal(sessions.peek(deleted!.id), undefined, 'and leaves the cache');
    t.equal(sessions.peek(challenged!.id), undefined, 'a record changed meanwhile is no longer trusted from the cache');
    t.match(await sessions.find(challenged!.id), { state: 'challenge' }, 'the next read sees what the other writer wrote');
    t.equal(await sessions.find(revoked!.id), undefined, 'and the revocation');
    await sessions.close();
  } finally {
    await inner.close();
  }
}

t.test('a failed batch is a warning naming the error, never its message; nothing crashes', async (t) => {
  const { inner, store } = await countedStore('memory://');
  const lines: string[] = [];
  const now = Date.now();
  const records = await fill(store, 3, now - 2 * MINUTE);
  const failing: SessionStore = {
    ...store,
    changeMany: async () => {
      throw Object.assign(new Error('password authentication failed for user "secret-user"'), { name: 'DatabaseError' });
    },
  };
  const sessions = new Sessions({
    upstream: fakeUpstream(),
    store: failing,
    metrics: createMetrics(),
    log: createLogger('info', (line) => lines.push(line)),
    cacheSize: 10,
    recordTtlMs: 30_000,
    throttleBackoffSeconds: 60,
    useWriteDelayMs: 60_000,
    now: () => now,
    throttled: () => undefined,
    challenged: () => false,
  });
  await Promise.all(records.map((record) => sessions.client(record).call('account_info', {})));
  await sessions.close(); // flushes what was used
  const warned = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'saving session uses failed');
  t.match(warned, [{ level: 'warn', error: 'DatabaseError', sessions: 3 }], 'one warning for the batch');
  t.notMatch(lines.join('\n'), /secret-user|password/, 'no driver message in the log');
  t.equal((await inner.get(records[0]!.id))!.lastUsedAt, now - 2 * MINUTE, 'nothing written');
  await inner.close();
});

t.test('SQLite', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-write-back-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.test('1,000 sessions used once: one store call, one transaction per 500', (t) => usedOnce(t, `sqlite://${join(dir, 'once.sqlite')}`));
  t.test('changed between read and write: not overwritten; deleted: not recreated', (t) => changedMeanwhile(t, `sqlite://${join(dir, 'meanwhile.sqlite')}`));
});

onEachSharedStore('write-back', async (t, server) => {
  if (/^rediss?:/.test(server.url)) return usedOnceOneByOne(t, server.url);
  // one store at a time, so the statements the spy counts are each test's own
  await t.test('1,000 sessions used once: one store call, one transaction per 500', (t) => usedOnce(t, server.url));
  await t.test('changed between read and write: not overwritten; deleted: not recreated', (t) => changedMeanwhile(t, server.url));
  await disconnected(server.url);
});

/**
 * Until the closed stores' connections are gone from the server: pg's pool.end() resolves before its
 * sockets close, and a server stopped meanwhile fails them with an error nobody listens to.
 */
async function disconnected(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const others = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
    for (let tries = 0; tries < 100 && (await client.query<{ n: number }>(others)).rows[0]!.n > 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    await client.end(); // waits for its own socket to close
  }
}
