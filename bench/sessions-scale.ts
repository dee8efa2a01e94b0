// `node dist/bench/sessions-scale.js [COUNT] [postgres://URL]`: fills a session store with COUNT
// sessions (half expired), then lists and sweeps it, printing time and peak RSS. A figure, never an
// assertion. A SQLite file in a temp folder, or the PostgreSQL database at URL (its session table is
// used as it is: give it a throwaway server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillSqliteRows } from './sqlite-fill.js';
import { createStore } from '../adapters/store/keyv.js';
import pg from 'pg';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const POSTGRES = process.argv[3];
if (!Number.isInteger(COUNT) || COUNT < 1 || (POSTGRES !== undefined && !/^postgres(ql)?:\/\//.test(POSTGRES)))
  throw new Error('usage: sessions-scale.js [COUNT] [postgres://URL]');
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const peak = () => mb(process.resourceUsage().maxRSS * 1024);

/** Half the sessions expired (the even ones), stored unencrypted (the bench's store has no key). */
function fillSqlite(path: string): Promise<void> {
  const now = Date.now();
  return fillSqliteRows(path, COUNT, (i) => {
    const record = {
      id: `s${String(i).padStart(8, '0')}`,
      account: { pk: String(i), username: `u${i}` },
      settings: {},
      state: 'active',
      createdAt: 0,
      lastUsedAt: 0,
    };
    return [`socialgate-sessions:${record.id}`, JSON.stringify({ value: JSON.stringify(record), expires: i % 2 ? now + 3_600_000 : now - 1000 })];
  });
}

/** The same rows, made by the server itself in one statement. */
async function fillPostgres(url: string): Promise<void> {
  const now = Date.now();
  const record =
    `json_build_object('id', 's' || lpad(i::text, 8, '0'), 'account', json_build_object('pk', i::text, ` +
    `'username', 'u' || i), 'settings', '{}'::json, 'state', 'active', 'createdAt', 0, 'lastUsedAt', 0)::text`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    `INSERT INTO socialgate_sessions (key, value) SELECT 'socialgate-sessions:s' || lpad(i::text, 8, '0'), ` +
      `json_build_object('value', ${record}, 'expires', CASE WHEN i % 2 = 1 THEN ${now + 3_600_000} ELSE ` +
      `${now - 1000} END)::text FROM generate_series(0, ${COUNT - 1}) AS i`,
  );
  await client.end();
}

/** The store under test and how to fill it behind the store's back. */
async function openEngine(): Promise<{ name: string; url: string; fill(): Promise<void>; dispose(): Promise<void> }> {
  if (POSTGRES) return { name: 'postgres', url: POSTGRES, fill: () => fillPostgres(POSTGRES), dispose: async () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-bench-'));
  const path = join(dir, 'sessions.sqlite');
  return { name: 'sqlite', url: `sqlite://${path}`, fill: () => fillSqlite(path), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

const engine = await openEngine();
try {
  const store = await createStore(engine.url, { sweepMs: 0, timeoutMs: 60_000 });
  await store.get('nobody'); // the table exists before the fill
  let started = Date.now();
  await engine.fill();
  process.stdout.write(`${engine.name}: filled ${COUNT} sessions in ${Date.now() - started} ms; peak RSS ${peak()} MB\n`);
  started = Date.now();
  let listed = 0;
  for await (const _ of store.list()) listed++;
  process.stdout.write(`list: ${listed} live in ${Date.now() - started} ms; peak RSS ${peak()} MB\n`);
  started = Date.now();
  const left = await store.sweep();
  process.stdout.write(`sweep: ${store.sweepStats!().removed} removed, ${left} left in ${Date.now() - started} ms; peak RSS ${peak()} MB\n`);
  await store.close();
} finally {
  await engine.dispose();
}
process.exit(0);
