// Reading a SQL store's rows in bounded pages, in key order, through the store's own queries.
// keyv's SQLite iterator recurses once per ten rows (a stack overflow above ~31,000 sessions) and
// its PostgreSQL one pages by OFFSET (each page re-reads every row before it): neither can walk a
// million sessions. A page here is one indexed range query on the primary key, so listing and
// sweeping take memory for one page and time in proportion to the rows, and each page is a short
// statement that leaves the store's connection to the request path in between.

/** One row as keyv wrote it: the namespaced key and keyv's serialised `{value, expires}`. */
export type Row = readonly [key: string, text: string];

export interface RowPager {
  /** Up to `limit` rows of the namespace whose keys sort after `after` (a full key, or '' to start). */
  page(after: string, limit: number): Promise<Row[]>;
  /** Deletes these full keys in one statement. */
  remove(keys: readonly string[]): Promise<void>;
}

export const PAGE_ROWS = 500;

type SqliteQuery = (sql: string, ...params: unknown[]) => Promise<{ key: string; value: string }[]>;
type PgQuery = (sql: string, params?: unknown[]) => Promise<{ key: string; value: string }[]>;

/** The namespace's key range: every key starts with `namespace:`, and ';' sorts right after ':'. */
const range = (namespace: string) => ({ low: `${namespace}:`, high: `${namespace};` });

export function sqlitePager(query: SqliteQuery, table: string, namespace: string): RowPager {
  const { low, high } = range(namespace);
  return {
    async page(after, limit) {
      const rows = await query(`SELECT key, value FROM ${table} WHERE key > ? AND key < ? ORDER BY key LIMIT ?`, after || low, high, limit);
      return rows.map((row) => [row.key, row.value] as const);
    },
    async remove(keys) {
      if (keys.length) await query(`DELETE FROM ${table} WHERE key IN (${keys.map(() => '?').join(',')})`, ...keys);
    },
  };
}

export function pgPager(query: PgQuery, table: string, namespace: string): RowPager {
  return {
    async page(after, limit) {
      // The database's own collation orders the keys (so the primary key's index serves the range);
      // the namespace is a filter, not a bound, since a locale's collation may not sort ':' as bytes do.
      const rows = await query(`SELECT key, value FROM ${table} WHERE key > $1 AND starts_with(key, $2) ORDER BY key LIMIT $3`, [
        after,
        `${namespace}:`,
        limit,
      ]);
      return rows.map((row) => [row.key, row.value] as const);
    },
    async remove(keys) {
      if (keys.length) await query(`DELETE FROM ${table} WHERE key = ANY($1)`, [keys]);
    },
  };
}

/** Every row of the namespace, a page at a time, yielding to the event loop between pages. */
export async function* rows(pager: RowPager, limit = PAGE_ROWS): AsyncIterable<Row> {
  let after = '';
  for (;;) {
    const page = await pager.page(after, limit);
    yield* page;
    if (page.length < limit) return;
    after = page[page.length - 1]![0];
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** keyv's stored form: the value and, when it expires, the epoch ms. */
export function unwrap(text: string): { value: unknown; expires?: number } | undefined {
  try {
    const parsed = JSON.parse(text) as { value?: unknown; expires?: unknown };
    return { value: parsed.value, expires: typeof parsed.expires === 'number' ? parsed.expires : undefined };
  } catch {
    return undefined;
  }
}
