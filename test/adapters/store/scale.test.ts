// The store at scale: 100,000 SQLite sessions, half of them expired, are listed and swept in bounded
// pages (keyv's own iterator overflows the stack above ~31,000); the sweep removes exactly the
// expired ones; a sweep that fails is reported, not swallowed. bench/sessions-scale.ts runs 1M.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import sqlite3 from 'sqlite3';
import { createStore } from '../../../adapters/store/keyv.js';
import type { Logger, SessionRecord } from '../../../engine/types.js';

const COUNT = 100_000;
const NAMESPACE = 'socialgate-sessions';

function record(i: number): SessionRecord {
  return {
    id: `s${String(i).padStart(7, '0')}`,
    account: { pk: String(5_000_000_000 + i), username: `u${i}` },
    settings: {},
    state: 'active',
    createdAt: 0,
    lastUsedAt: 0,
  };
}

/** Writes rows as keyv does (namespaced key, `{value, expires}`), in one transaction: seconds, not minutes. */
async function fill(path: string, count: number, expiredEvery: number): Promise<number> {
  const db = new sqlite3.Database(path);
  const run = (sql: string, params: unknown[] = []) =>
    new Promise<void>((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
  const now = Date.now();
  let expired = 0;
  await run('BEGIN');
  for (let start = 0; start < count; start += 400) {
    const params: unknown[] = [];
    for (let i = start; i < Math.min(count, start + 400); i++) {
      const gone = i % expiredEvery === 0;
      if (gone) expired++;
      const r = record(i);
      params.push(`${NAMESPACE}:${r.id}`, JSON.stringify({ value: JSON.stringify(r), expires: gone ? now - 1000 : now + 3_600_000 }));
    }
    await run(
      `INSERT INTO sessions (key, value) VALUES ${Array(params.length / 2)
        .fill('(?, ?)')
        .join(',')}`,
      params,
    );
  }
  await run('COMMIT');
  await new Promise<void>((resolve) => db.close(() => resolve()));
  return expired;
}

t.test('100,000 SQLite sessions: listed and swept in pages, exactly the expired ones removed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-scale-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'sessions.sqlite');
  const store = await createStore(`sqlite://${path}`, { sweepMs: 0 });
  t.teardown(() => store.close());
  await store.get('nobody'); // the table exists before it is filled
  const expired = await fill(path, COUNT, 2);
  t.equal(expired, COUNT / 2);

  let listed = 0;
  let previous = '';
  let ordered = true;
  for await (const r of store.list()) {
    if (r.id <= previous) ordered = false;
    previous = r.id;
    listed++;
  }
  t.equal(listed, COUNT - expired, 'list skips the expired and reaches every live record');
  t.ok(ordered, 'each record once, in key order');

  const left = await store.sweep();
  t.equal(left, COUNT - expired, 'the sweep leaves the live ones');
  t.equal(store.sweepStats!().removed, expired, 'and removed exactly the expired ones');
  t.ok(await store.get(record(1).id), 'a live record is still there');
  t.equal(await store.get(record(2).id), undefined, 'an expired one is gone');
  t.equal(await store.sweep(), COUNT - expired, 'a second sweep finds nothing more to remove');
  t.equal(store.sweepStats!().removed, expired);
});

t.test('a scheduled sweep that fails is logged as an error with its cause and counted', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-scale-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'sessions.sqlite');
  const errors: [string, Record<string, unknown> | undefined][] = [];
  const log = {
    error: (message: string, fields?: Record<string, unknown>) => errors.push([message, fields]),
    warn() {},
    info() {},
    debug() {},
  } as unknown as Logger;
  const store = await createStore(`sqlite://${path}`, { sweepMs: 40, log });
  t.teardown(() => store.close());
  await store.get('nobody'); // the table exists before it is dropped
  await new Promise<void>((resolve, reject) => {
    const db = new sqlite3.Database(path);
    db.configure('busyTimeout', 3000);
    db.run('DROP TABLE sessions', (error) => db.close(() => (error ? reject(error) : resolve())));
  });
  const deadline = Date.now() + 5000;
  while (store.sweepStats!().failures === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.ok(store.sweepStats!().failures >= 1, 'counted');
  t.match(errors[0], ['session expiry sweep failed; expired sessions stay until the next one', { error: /no such table/ }], 'logged with its cause');
});
