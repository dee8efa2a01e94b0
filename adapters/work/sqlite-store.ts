// The WorkStore on SQLite: documents by bucket and key, and append-only lists deduplicated by a key
// per entry. An append and its companion document (a job's cursor) commit in one transaction.
import type { DocWrite, ListEntry, WorkStore } from '../../engine/types.js';
import type { Row, SqliteDb } from './sqlite-db.js';
import type { Sealer } from './sealer.js';

/** 4 parameters a row: 200 rows stay under SQLite's oldest limit of 999 parameters a statement. */
const ROWS_PER_INSERT = 200;

export const STORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS work_docs (bucket TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (bucket, key));
CREATE TABLE IF NOT EXISTS work_lists (list TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (list, key));
CREATE INDEX IF NOT EXISTS work_lists_seq ON work_lists (list, seq);
`;

/** The db must have been opened with STORE_SCHEMA as its setup. */
export function sqliteWorkStore(db: SqliteDb, sealer: Sealer): WorkStore {
  const putDoc = (doc: DocWrite) =>
    db.run('INSERT INTO work_docs (bucket, key, value) VALUES (?, ?, ?) ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value', [
      doc.bucket,
      doc.key,
      JSON.stringify(doc.value),
    ]);
  const getDoc = async <T>(bucket: string, key: string) =>
    parse<T>((await db.get('SELECT value FROM work_docs WHERE bucket = ? AND key = ?', [bucket, key]))?.value);
  return {
    engine: 'sqlite',
    get: getDoc,
    put: async (bucket, key, value) => void (await putDoc({ bucket, key, value })),
    update: <T>(bucket: string, key: string, change: (current: T | undefined) => T | undefined) =>
      db.transaction(async () => {
        const current = await getDoc<T>(bucket, key);
        const next = change(current);
        if (next === undefined) return current;
        await putDoc({ bucket, key, value: next });
        return next;
      }),
    delete: async (bucket, key) => (await db.run('DELETE FROM work_docs WHERE bucket = ? AND key = ?', [bucket, key])) > 0,
    list: async <T>(bucket: string, options: { after?: string; limit?: number } = {}) => {
      const rows = await db.all<Row>('SELECT key, value FROM work_docs WHERE bucket = ? AND key > ? ORDER BY key LIMIT ?', [
        bucket,
        options.after ?? '',
        options.limit ?? -1,
      ]);
      return rows.map((row) => ({ key: String(row.key), value: parse<T>(row.value) as T }));
    },
    append: (list, entries, withDoc) =>
      db.transaction(async () => {
        const last = Number((await db.get<Row>('SELECT MAX(seq) AS seq FROM work_lists WHERE list = ?', [list]))?.seq ?? 0);
        let added = 0;
        // Rows of one statement at a time; an ignored row (a key seen before) leaves a gap in seq, which readers skip.
        for (let from = 0; from < entries.length; from += ROWS_PER_INSERT) {
          const rows = entries.slice(from, from + ROWS_PER_INSERT);
          const params = rows.flatMap((entry, i) => [list, entry.key, last + from + i + 1, JSON.stringify(entry.value)]);
          added += await db.run(`INSERT OR IGNORE INTO work_lists (list, key, seq, value) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')}`, params);
        }
        if (withDoc) await putDoc(withDoc(added));
        return added;
      }),
    read: async <T>(list: string, options: { after?: number; limit?: number } = {}): Promise<ListEntry<T>[]> => {
      const rows = await db.all<Row>('SELECT seq, value FROM work_lists WHERE list = ? AND seq > ? ORDER BY seq LIMIT ?', [
        list,
        options.after ?? 0,
        options.limit ?? -1,
      ]);
      return rows.map((row) => ({ seq: Number(row.seq), value: parse<T>(row.value) as T }));
    },
    count: async (list) => Number((await db.get<Row>('SELECT COUNT(*) AS n FROM work_lists WHERE list = ?', [list]))?.n ?? 0),
    last: async (list) => Number((await db.get<Row>('SELECT MAX(seq) AS seq FROM work_lists WHERE list = ?', [list]))?.seq ?? 0),
    trim: async (list, keep) =>
      void (await db.run('DELETE FROM work_lists WHERE list = ? AND seq <= (SELECT MAX(seq) FROM work_lists WHERE list = ?) - ?', [
        list,
        list,
        Math.max(1, keep),
      ])),
    dropList: async (list) => void (await db.run('DELETE FROM work_lists WHERE list = ?', [list])),
    seal: sealer.seal,
    open: sealer.open,
    ready: async () => {
      try {
        await db.get('SELECT 1');
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: error instanceof Error ? error.message : String(error) };
      }
    },
    close: () => db.close(),
  };
}

function parse<T>(text: unknown): T | undefined {
  return typeof text === 'string' ? (JSON.parse(text) as T) : undefined;
}
