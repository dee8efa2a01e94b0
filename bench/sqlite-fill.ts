// The session benches' own inserts into a SQLite session store: rows exactly as the store writes
// them (keyv's namespaced key and its `{value, expires}` text), 400 to a statement and all in one
// transaction on a second connection: a million in under a minute instead of an hour of single writes.
import sqlite3 from 'sqlite3';

/** The full key and the stored text of row `i`. */
export type RowOf = (i: number) => readonly [key: string, text: string];

export async function fillSqliteRows(path: string, count: number, rowOf: RowOf): Promise<void> {
  const db = new sqlite3.Database(path);
  const run = (sql: string, params: unknown[] = []) => new Promise<void>((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve())));
  await run('BEGIN');
  for (let start = 0; start < count; start += 400) {
    const params: unknown[] = [];
    for (let i = start; i < Math.min(count, start + 400); i++) params.push(...rowOf(i));
    await run(
      `INSERT INTO sessions (key, value) VALUES ${Array(params.length / 2)
        .fill('(?, ?)')
        .join(',')}`,
      params,
    );
  }
  await run('COMMIT');
  await new Promise<void>((resolve) => db.close(() => resolve()));
}
