// The in-process WorkQueue, its state in SQLite: an item is written before anything acts on it,
// claimed (state running, with a fresh token) before its handler runs, and settled after. On
// start, what a killed process left running is pending again, so it runs again: delivery is at
// least once. One instance only: two processes on one file would both claim (use BullMQ for that).
import { randomBytes } from 'node:crypto';
import type { AddOptions, DefineOptions, Logger, WorkHandler, WorkItem, WorkOutcome, WorkQueue } from '../../engine/types.js';
import { stepOf } from './toolkit/index.js';
import type { Row, SqliteDb } from './sqlite-db.js';

export const QUEUE_SCHEMA = `
CREATE TABLE IF NOT EXISTS work_items (
  kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
  state TEXT NOT NULL, run_at INTEGER NOT NULL, token TEXT NOT NULL DEFAULT '',
  attempt INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 1, backoff TEXT NOT NULL DEFAULT '[1000]', error TEXT,
  PRIMARY KEY (kind, id));
CREATE INDEX IF NOT EXISTS work_items_due ON work_items (kind, state, run_at);
`;

/** Longest sleep between looks at the table: a safety net, since adds in this process wake it. */
const IDLE_POLL_MS = 1000;

interface Kind {
  readonly handler: WorkHandler<unknown>;
  readonly concurrency: number;
  readonly onFailed?: DefineOptions['onFailed'];
  running: number;
}

interface Claimed {
  readonly kind: string;
  readonly id: string;
  readonly data: string;
  readonly token: string;
  readonly attempt: number;
  readonly attempts: number;
  readonly backoff: string;
}

export interface SqliteQueueOptions {
  readonly log: Logger;
  readonly now?: () => number;
}

export class SqliteWorkQueue implements WorkQueue {
  readonly engine = 'sqlite';
  private readonly kinds = new Map<string, Kind>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly now: () => number;
  private timer?: NodeJS.Timeout;
  private started = false;
  private closed = false;
  private ticking?: Promise<void>;
  private again = false;

  /** The db must have been opened with QUEUE_SCHEMA as its setup. */
  constructor(
    private readonly db: SqliteDb,
    private readonly options: SqliteQueueOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  define<T>(kind: string, handler: WorkHandler<T>, options: DefineOptions = {}): void {
    if (this.started) throw new Error(`work kind "${kind}" defined after the queue started`);
    if (this.kinds.has(kind)) throw new Error(`work kind "${kind}" defined twice`);
    this.kinds.set(kind, {
      handler: handler as WorkHandler<unknown>,
      concurrency: Math.max(1, options.concurrency ?? 1),
      onFailed: options.onFailed,
      running: 0,
    });
  }

  async add<T>(kind: string, id: string, data: T, options: AddOptions = {}): Promise<void> {
    // A failed item may be added again; a pending or running one stays as it is.
    await this.db.run(
      `INSERT INTO work_items (kind, id, data, state, run_at, attempts, backoff) VALUES (?, ?, ?, 'pending', ?, ?, ?)
       ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data, state = 'pending', run_at = excluded.run_at, attempt = 0,
         attempts = excluded.attempts, backoff = excluded.backoff, error = NULL WHERE work_items.state = 'failed'`,
      [
        kind,
        id,
        JSON.stringify(data ?? null),
        this.now() + (options.delayMs ?? 0),
        Math.max(1, options.attempts ?? 1),
        JSON.stringify(options.backoffMs ?? [1000]),
      ],
    );
    this.wake();
  }

  async remove(kind: string, id: string): Promise<void> {
    await this.db.run('DELETE FROM work_items WHERE kind = ? AND id = ?', [kind, id]);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // What a previous process was running when it died runs again (handlers are idempotent).
    await this.db.run("UPDATE work_items SET state = 'pending', token = '' WHERE state = 'running'");
    this.wake();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.abort.abort(new Error('work queue closing'));
    await this.ticking;
    await Promise.allSettled([...this.running]);
  }

  /** Looks at the table now (coalescing looks already under way). */
  private wake(): void {
    if (!this.started || this.closed) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = this.tick()
      .catch((error) => this.options.log.warn('work queue poll failed', { error: String(error) }))
      .finally(() => {
        this.ticking = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /**
   * One look at the table: a single statement finds when each kind with a free slot is next due,
   * and only a kind with something due now opens a claiming transaction. An idle queue costs one
   * read a poll, not a write-locking transaction per kind.
   */
  private async tick(): Promise<void> {
    const due = await this.nextDue();
    const now = this.now();
    let claimed = false;
    for (const [name, at] of due) {
      const kind = this.kinds.get(name)!;
      const free = kind.concurrency - kind.running;
      if (at > now || free <= 0) continue;
      for (const item of await this.claim(name, free)) {
        this.launch(kind, item);
        claimed = true;
      }
    }
    // What was claimed changed the free slots and the pending rows: look again before sleeping.
    this.sleepUntil(claimed ? await this.nextDue() : due);
  }

  /** When each kind that has a free slot next has a pending item (epoch ms); kinds with none are absent. */
  private async nextDue(): Promise<ReadonlyMap<string, number>> {
    const kinds = [...this.kinds].filter(([, k]) => k.running < k.concurrency).map(([name]) => name);
    if (this.closed || kinds.length === 0) return new Map();
    const rows = await this.db.all<Row>(
      `SELECT kind, MIN(run_at) AS at FROM work_items WHERE state = 'pending' AND kind IN (${kinds.map(() => '?').join(',')}) GROUP BY kind`,
      kinds,
    );
    return new Map(rows.map((row) => [String(row.kind), Number(row.at)]));
  }

  /** Marks up to `limit` due items running under fresh tokens and answers them. */
  private claim(kind: string, limit: number): Promise<Claimed[]> {
    return this.db.transaction(async () => {
      const rows = await this.db.all<Row>("SELECT * FROM work_items WHERE kind = ? AND state = 'pending' AND run_at <= ? ORDER BY run_at LIMIT ?", [
        kind,
        this.now(),
        limit,
      ]);
      const claimed: Claimed[] = [];
      for (const row of rows) {
        const token = randomBytes(8).toString('hex');
        await this.db.run("UPDATE work_items SET state = 'running', token = ? WHERE kind = ? AND id = ?", [token, kind, row.id]);
        claimed.push({ ...(row as unknown as Claimed), token });
      }
      return claimed;
    });
  }

  /** Sleeps until the earliest due item, or IDLE_POLL_MS at most (adds and finished items wake it sooner). */
  private sleepUntil(due: ReadonlyMap<string, number>): void {
    if (this.closed) return;
    const now = this.now();
    let wait = IDLE_POLL_MS;
    for (const at of due.values()) wait = Math.min(wait, Math.max(0, at - now));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }

  private launch(kind: Kind, row: Claimed): void {
    kind.running++;
    const item: WorkItem = { kind: row.kind, id: row.id, data: JSON.parse(row.data), attempt: row.attempt + 1, signal: this.abort.signal };
    const run = this.runOne(kind, item, row).finally(() => {
      kind.running--;
      this.running.delete(run);
      this.wake();
    });
    this.running.add(run);
  }

  private async runOne(kind: Kind, item: WorkItem, row: Claimed): Promise<void> {
    let outcome: WorkOutcome;
    try {
      outcome = await kind.handler(item);
    } catch (error) {
      if (this.closed) return this.release(row); // cut off by the shutdown: not the item's fault
      return this.failed(kind, item, row, error);
    }
    await this.settle(row, outcome).catch((error) => this.options.log.warn('work item not settled', { kind: item.kind, error: String(error) }));
  }

  /** Done: removed. Later: pending at that time. */
  private async settle(row: Claimed, outcome: WorkOutcome): Promise<void> {
    const later = laterOf(outcome, this.now());
    if (later !== undefined) return void (await this.update(row, "state = 'pending', run_at = ?", [later]));
    await this.db.run('DELETE FROM work_items WHERE kind = ? AND id = ? AND token = ?', [row.kind, row.id, row.token]);
  }

  private async failed(kind: Kind, item: WorkItem, row: Claimed, error: unknown): Promise<void> {
    const name = error instanceof Error ? error.name : 'error';
    if (item.attempt < row.attempts) {
      const wait = stepOf(JSON.parse(row.backoff) as number[], item.attempt);
      return void (await this.update(row, "state = 'pending', attempt = ?, run_at = ?, error = ?", [item.attempt, this.now() + wait, name]));
    }
    await this.update(row, "state = 'failed', attempt = ?, error = ?", [item.attempt, name]);
    try {
      await kind.onFailed?.(item, error);
    } catch (hookError) {
      this.options.log.warn('work failure hook threw', { kind: item.kind, error: String(hookError) });
    }
  }

  private async release(row: Claimed): Promise<void> {
    await this.update(row, "state = 'pending'", []).catch(() => undefined);
  }

  /** Changes the item only if it is still the run this process claimed (not removed and re-added). */
  private update(row: Claimed, set: string, params: readonly unknown[]): Promise<number> {
    return this.db.run(`UPDATE work_items SET ${set}, token = '' WHERE kind = ? AND id = ? AND token = ?`, [...params, row.kind, row.id, row.token]);
  }
}

function laterOf(outcome: WorkOutcome, now: number): number | undefined {
  if (!outcome) return undefined;
  if ('retryAt' in outcome) return outcome.retryAt;
  if ('delayMs' in outcome) return now + Math.max(0, outcome.delayMs);
  return undefined;
}
