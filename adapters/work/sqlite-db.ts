// A small promise face over node-sqlite3 for the work layer's own file: one connection, WAL (a
// crashed process loses nothing it committed), and one transaction at a time (node-sqlite3 shares
// the connection between callers, so interleaved BEGINs would nest).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';

// WAL: a process killed at any point loses nothing it committed (NORMAL sync risks only power loss).
const PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;';

export type Row = Record<string, unknown>;

export class SqliteDb {
  private readonly db: sqlite3.Database;
  private tail: Promise<unknown> = Promise.resolve();
  readonly opened: Promise<void>;

  /** Opens at once; statements wait until the file is open and `setup` (the tables) has run. */
  constructor(
    readonly path: string,
    setup = '',
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    let done!: (error: Error | null) => void;
    const open = new Promise<void>((resolve, reject) => (done = (error) => (error ? reject(error) : resolve())));
    this.db = new sqlite3.Database(path, (error) => done(error));
    this.db.configure('busyTimeout', 5000);
    this.opened = open.then(() => this.execNow(PRAGMAS + setup));
    this.opened.catch(() => undefined); // reported by the first statement and by ready()
  }

  private execNow(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (error) => (error ? reject(error) : resolve())));
  }

  async exec(sql: string): Promise<void> {
    await this.opened;
    return this.execNow(sql);
  }

  /** Answers how many rows the statement changed. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    await this.opened;
    return new Promise((resolve, reject) =>
      this.db.run(sql, params, function (this: sqlite3.RunResult, error: Error | null) {
        if (error) reject(error);
        else resolve(this.changes);
      }),
    );
  }

  async get<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    await this.opened;
    return new Promise((resolve, reject) => this.db.get(sql, params, (error, row) => (error ? reject(error) : resolve(row as T | undefined))));
  }

  async all<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    await this.opened;
    return new Promise((resolve, reject) => this.db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as T[]))));
  }

  /** Runs `body` inside BEGIN IMMEDIATE ... COMMIT, after any transaction already under way. */
  transaction<T>(body: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      await this.exec('BEGIN IMMEDIATE');
      try {
        const value = await body();
        await this.exec('COMMIT');
        return value;
      } catch (error) {
        await this.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next.catch(() => undefined);
    return next;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.db.close(() => resolve()));
  }
}
