// Writing many rows of a SQL store at once, through the store's own connection: the rows read in one
// query, then written in one statement where each row's text is still what was read (compare and
// set). One statement is one transaction on both engines, so a batch commits whole or not at all,
// and no explicit BEGIN/COMMIT is needed: on SQLite the store has a single connection that the
// request path shares, and a BEGIN there would draw the request path's own writes into the batch's
// transaction (and roll them back with it).

/** One row to write: the full (namespaced) key, the text it was read with, and its new text. */
export interface RowSwap {
  readonly key: string;
  readonly was: string;
  readonly text: string;
}

export interface RowWriter {
  /** The stored text of each of these full keys that exists, in one query. */
  read(keys: readonly string[]): Promise<Map<string, string>>;
  /** Writes each row whose stored text is still `was`, in one statement; returns the keys written. */
  swap(rows: readonly RowSwap[]): Promise<Set<string>>;
}

/** Rows in one read and one write at most: a bounded statement (SQLite allows 32,766 parameters) and short locks. */
export const BATCH_ROWS = 500;

type SqliteQuery = (sql: string, ...params: unknown[]) => Promise<{ key: string; value: string }[]>;
type PgQuery = (sql: string, params?: unknown[]) => Promise<{ key: string; value: string }[]>;

export function sqliteWriter(query: SqliteQuery, table: string): RowWriter {
  return {
    async read(keys) {
      if (!keys.length) return new Map();
      const rows = await query(`SELECT key, value FROM ${table} WHERE key IN (${keys.map(() => '?').join(',')})`, ...keys);
      return new Map(rows.map((row) => [row.key, row.value]));
    },
    async swap(rows) {
      if (!rows.length) return new Set();
      // UPDATE ... FROM needs SQLite 3.33 and RETURNING 3.35 (sqlite3 5.1 bundles 3.44).
      const values = rows.map(() => '(?, ?, ?)').join(',');
      const written = await query(
        `WITH batch(k, was, text) AS (VALUES ${values}) UPDATE ${table} SET value = batch.text FROM batch WHERE ` +
          `${table}.key = batch.k AND ${table}.value = batch.was RETURNING ${table}.key AS key`,
        ...rows.flatMap((row) => [row.key, row.was, row.text]),
      );
      return new Set(written.map((row) => row.key));
    },
  };
}

export function pgWriter(query: PgQuery, table: string): RowWriter {
  return {
    async read(keys) {
      if (!keys.length) return new Map();
      const rows = await query(`SELECT key, value FROM ${table} WHERE key = ANY($1)`, [keys]);
      return new Map(rows.map((row) => [row.key, row.value]));
    },
    async swap(rows) {
      if (!rows.length) return new Set();
      // Three arrays as parameters whatever the row count: one plan, no statement text growing with the batch.
      const written = await query(
        `UPDATE ${table} AS t SET value = batch.text FROM unnest($1::text[], $2::text[], $3::text[]) AS batch(k, ` +
          `was, text) WHERE t.key = batch.k AND t.value = batch.was RETURNING t.key`,
        [rows.map((row) => row.key), rows.map((row) => row.was), rows.map((row) => row.text)],
      );
      return new Set(written.map((row) => row.key));
    },
  };
}

/** The ids in runs of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size = BATCH_ROWS): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}
