// The WorkStore on PostgreSQL (the session store's server), for several instances: the same two
// tables as the SQLite engine's (items as json, which keeps their fields' order); an append and its companion document commit in one transaction,
// and a document's read-modify-write holds its row (SELECT ... FOR UPDATE).
import type pg from 'pg';
import { listeningPool, schemaOnce } from '../store/pg-client.js';
import type { ListEntry, WorkStore } from '../../engine/types.js';
import type { Sealer } from './sealer.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS socialgate_work_docs (bucket TEXT NOT NULL, key TEXT NOT NULL, value JSONB NOT NULL, PRIMARY KEY (bucket, key));
CREATE TABLE IF NOT EXISTS socialgate_work_lists (list TEXT NOT NULL, key TEXT NOT NULL, seq BIGINT NOT NULL, value JSON NOT NULL, PRIMARY KEY (list, key));
CREATE INDEX IF NOT EXISTS socialgate_work_lists_seq ON socialgate_work_lists (list, seq);
`;
/** Serialises appends to one list across instances (the seq they hand out must not collide). */
const LIST_LOCK = "SELECT pg_advisory_xact_lock(hashtext('socialgate_work_list:' || $1))";
const PUT = 'INSERT INTO socialgate_work_docs (bucket, key, value) VALUES ($1, $2, $3) ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value';

export function pgWorkStore(url: string, sealer: Sealer, timeoutMs = 500): WorkStore {
  // Waiting for a connection (a new one, or one of the pool's while all are busy with a frozen
  // server) gives up after the store timeout instead of queueing a call to run when the server returns.
  const pool = listeningPool({ connectionString: url, max: 5, connectionTimeoutMillis: Math.max(timeoutMs, 1000) });
  const ready = schemaOnce(() => pool.query(SCHEMA));
  const query = async (text: string, values: unknown[] = []) => (await ready(), pool.query(text, values));
  async function transaction<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await ready();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const value = await body(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  return {
    engine: 'postgres',
    get: async <T>(bucket: string, key: string) =>
      (await query('SELECT value FROM socialgate_work_docs WHERE bucket = $1 AND key = $2', [bucket, key])).rows[0]?.value as T | undefined,
    put: async (bucket, key, value) => void (await query(PUT, [bucket, key, JSON.stringify(value)])),
    update: <T>(bucket: string, key: string, change: (current: T | undefined) => T | undefined) =>
      transaction(async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtext('socialgate_work_doc:' || $1 || ':' || $2))", [bucket, key]);
        const current = (await client.query('SELECT value FROM socialgate_work_docs WHERE bucket = $1 AND key = $2', [bucket, key])).rows[0]?.value as
          | T
          | undefined;
        const next = change(current);
        if (next === undefined) return current;
        await client.query(PUT, [bucket, key, JSON.stringify(next)]);
        return next;
      }),
    delete: async (bucket, key) => ((await query('DELETE FROM socialgate_work_docs WHERE bucket = $1 AND key = $2', [bucket, key])).rowCount ?? 0) > 0,
    list: async <T>(bucket: string, options: { after?: string; limit?: number } = {}) => {
      const rows = (
        await query('SELECT key, value FROM socialgate_work_docs WHERE bucket = $1 AND key > $2 ORDER BY key COLLATE "C" LIMIT $3', [
          bucket,
          options.after ?? '',
          options.limit ?? null,
        ])
      ).rows;
      return rows.map((row) => ({ key: String(row.key), value: row.value as T }));
    },
    append: (list, entries, withDoc) =>
      transaction(async (client) => {
        await client.query(LIST_LOCK, [list]);
        const last = Number((await client.query('SELECT COALESCE(MAX(seq), 0) AS seq FROM socialgate_work_lists WHERE list = $1', [list])).rows[0].seq);
        let added = 0;
        if (entries.length) {
          const result = await client.query(
            `INSERT INTO socialgate_work_lists (list, key, seq, value)
             SELECT $1, e.key, $2::bigint + e.n, e.value FROM unnest($3::text[], $4::json[]) WITH ORDINALITY AS e(key, value, n)
             ON CONFLICT (list, key) DO NOTHING`,
            [list, last, entries.map((e) => e.key), entries.map((e) => JSON.stringify(e.value))],
          );
          added = result.rowCount ?? 0;
        }
        if (withDoc) {
          const doc = withDoc(added);
          await client.query(PUT, [doc.bucket, doc.key, JSON.stringify(doc.value)]);
        }
        return added;
      }),
    read: async <T>(list: string, options: { after?: number; limit?: number } = {}): Promise<ListEntry<T>[]> => {
      const rows = (
        await query('SELECT seq, value FROM socialgate_work_lists WHERE list = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
          list,
          options.after ?? 0,
          options.limit ?? null,
        ])
      ).rows;
      return rows.map((row) => ({ seq: Number(row.seq), value: row.value as T }));
    },
    count: async (list) => Number((await query('SELECT COUNT(*) AS n FROM socialgate_work_lists WHERE list = $1', [list])).rows[0].n),
    last: async (list) => Number((await query('SELECT MAX(seq) AS seq FROM socialgate_work_lists WHERE list = $1', [list])).rows[0].seq ?? 0),
    trim: async (list, keep) =>
      void (await query('DELETE FROM socialgate_work_lists WHERE list = $1 AND seq <= (SELECT MAX(seq) FROM socialgate_work_lists WHERE list = $1) - $2', [
        list,
        Math.max(1, keep),
      ])),
    dropList: async (list) => void (await query('DELETE FROM socialgate_work_lists WHERE list = $1', [list])),
    seal: sealer.seal,
    open: sealer.open,
    ready: async () => {
      try {
        await query('SELECT 1');
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: error instanceof Error ? error.message : String(error) };
      }
    },
    close: () => pool.end(),
  };
}
