// The policy's counters in SQL: one upsert with RETURNING adds to every window of a class at once
// (atomic in both engines: a second instance's statement waits for the row, never reads a stale total).
import { SqliteDb } from '../../adapters/work/sqlite-db.js';
import { listeningPool, schemaOnce } from '../../adapters/store/pg-client.js';
import { within, type CounterKey, type CounterStore } from './counters.js';

const COUNTERS = 'socialgate_policy_counters';
const SETTINGS = 'socialgate_policy_sessions';
const SCHEMA = `
CREATE TABLE IF NOT EXISTS ${COUNTERS} (key TEXT PRIMARY KEY, n BIGINT NOT NULL, expires_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ${SETTINGS} (ref TEXT PRIMARY KEY, value TEXT NOT NULL);
`;
/** Windows that ended are removed now and then, off any request's path. */
const SWEEP_EVERY = 500;

/** `$1, $2, ...` for PostgreSQL, `?` for SQLite. */
type Mark = (index: number) => string;

function upsert(keys: readonly CounterKey[], by: number, mark: Mark): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const rows = keys.map((key) => {
    params.push(key.key, by, key.expiresAt);
    const at = params.length;
    return `(${mark(at - 2)}, ${mark(at - 1)}, ${mark(at)})`;
  });
  const sql =
    `INSERT INTO ${COUNTERS} (key, n, expires_at) VALUES ${rows.join(', ')} ON CONFLICT (key) DO ` +
    `UPDATE SET n = ${COUNTERS}.n + excluded.n RETURNING key, n`;
  return { sql, params };
}

function select(keys: readonly CounterKey[], mark: Mark): string {
  return `SELECT key, n FROM ${COUNTERS} WHERE key IN (${keys.map((_, i) => mark(i + 1)).join(', ')})`;
}

const inOrder = (keys: readonly CounterKey[], rows: readonly { key: unknown; n: unknown }[]): number[] => {
  const found = new Map(rows.map((row) => [String(row.key), Number(row.n)]));
  return keys.map((key) => found.get(key.key) ?? 0);
};

export function sqliteCounters(path: string): CounterStore {
  const db = new SqliteDb(path, SCHEMA);
  let adds = 0;
  return {
    open: () => db.opened,
    async add(keys, by) {
      if (++adds % SWEEP_EVERY === 0) void db.run(`DELETE FROM ${COUNTERS} WHERE expires_at < ?`, [Date.now()]).catch(() => undefined);
      const { sql, params } = upsert(keys, by, () => '?');
      return inOrder(keys, await db.all(sql, params));
    },
    read: async (keys) =>
      inOrder(
        keys,
        await db.all(
          select(keys, () => '?'),
          keys.map((key) => key.key),
        ),
      ),
    settings: async (ref) => (await db.get<{ value: string }>(`SELECT value FROM ${SETTINGS} WHERE ref = ?`, [ref]))?.value,
    saveSettings: async (ref, value) =>
      void (await db.run(`INSERT INTO ${SETTINGS} (ref, value) VALUES (?, ?) ON CONFLICT (ref) DO UPDATE SET value = excluded.value`, [ref, value])),
    close: () => db.close(),
  };
}

export function pgCounters(url: string, timeoutMs: number): CounterStore {
  const pool = listeningPool({ connectionString: url, max: 5, connectionTimeoutMillis: Math.max(timeoutMs, 1000) });
  const ready = schemaOnce(() => pool.query(SCHEMA));
  const query = async (text: string, values: unknown[]) =>
    (
      await within(
        timeoutMs,
        ready().then(() => pool.query(text, values)),
      )
    ).rows as { key: unknown; n: unknown; value?: unknown }[];
  const mark: Mark = (index) => `$${index}`;
  let adds = 0;
  return {
    open: ready,
    async add(keys, by) {
      if (++adds % SWEEP_EVERY === 0) void pool.query(`DELETE FROM ${COUNTERS} WHERE expires_at < $1`, [Date.now()]).catch(() => undefined);
      const { sql, params } = upsert(keys, by, mark);
      return inOrder(keys, await query(sql, params));
    },
    read: async (keys) =>
      inOrder(
        keys,
        await query(
          select(keys, mark),
          keys.map((key) => key.key),
        ),
      ),
    settings: async (ref) => {
      const rows = await query(`SELECT ref AS key, 0 AS n, value FROM ${SETTINGS} WHERE ref = $1`, [ref]);
      return rows[0] ? String(rows[0].value) : undefined;
    },
    saveSettings: async (ref, value) =>
      void (await query(`INSERT INTO ${SETTINGS} (ref, value) VALUES ($1, $2) ON CONFLICT (ref) DO UPDATE SET value = excluded.value`, [ref, value])),
    close: () => pool.end(),
  };
}
