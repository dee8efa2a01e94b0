// `node dist/bench/sessions-scale.js [COUNT]`: fills a SQLite session store with COUNT sessions (half
// expired), then lists and sweeps it, printing time and peak RSS. A figure, never an assertion.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { createStore } from '../adapters/store/keyv.js';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const peak = () => mb(process.resourceUsage().maxRSS * 1024);

async function fill(path: string): Promise<void> {
  const db = new sqlite3.Database(path);
  const run = (sql: string, params: unknown[] = []) => new Promise<void>((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve())));
  const now = Date.now();
  await run('BEGIN');
  for (let start = 0; start < COUNT; start += 400) {
    const params: unknown[] = [];
    for (let i = start; i < Math.min(COUNT, start + 400); i++) {
      const record = { id: `s${String(i).padStart(8, '0')}`, account: { pk: String(i), username: `u${i}` }, settings: {}, state: 'active', createdAt: 0, lastUsedAt: 0 };
      params.push(`socialgate-sessions:${record.id}`, JSON.stringify({ value: JSON.stringify(record), expires: i % 2 ? now + 3_600_000 : now - 1000 }));
    }
    await run(`INSERT INTO sessions (key, value) VALUES ${Array(params.length / 2).fill('(?, ?)').join(',')}`, params);
  }
  await run('COMMIT');
  await new Promise<void>((resolve) => db.close(() => resolve()));
}

const dir = mkdtempSync(join(tmpdir(), 'socialgate-bench-'));
try {
  const path = join(dir, 'sessions.sqlite');
  const store = await createStore(`sqlite://${path}`, { sweepMs: 0 });
  await store.get('nobody');
  let started = Date.now();
  await fill(path);
  process.stdout.write(`filled ${COUNT} sessions in ${Date.now() - started} ms; peak RSS ${peak()} MB\n`);
  started = Date.now();
  let listed = 0;
  for await (const _ of store.list()) listed++;
  process.stdout.write(`list: ${listed} live in ${Date.now() - started} ms; peak RSS ${peak()} MB\n`);
  started = Date.now();
  const left = await store.sweep();
  process.stdout.write(`sweep: ${store.sweepStats!().removed} removed, ${left} left in ${Date.now() - started} ms; peak RSS ${peak()} MB\n`);
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
