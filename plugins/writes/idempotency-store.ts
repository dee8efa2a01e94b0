// Where idempotency keys live: documents of the background layer's work store (bucket
// `idempotency`), which sits in the session store's server (the SQLite file's neighbour, Redis,
// PostgreSQL), so every instance on that store shares them. Each change is one atomic
// read-change-write of the store (a SQLite transaction, Redis WATCH/MULTI, a PostgreSQL
// transaction under an advisory lock): two instances can never both claim a key.
import { createHash, randomBytes } from 'node:crypto';
import type { WorkStore } from '../../engine/types.js';

/**
 * One key's state. `sent`: its owner runs the request (or died running it: its lease ran out);
 * `done`: the answer to replay; `unknown`: the write went out, its answer was lost and reading back
 * could not tell; a keyed repeat reads back again, never re-sends.
 */
export interface KeyRecord {
  readonly fingerprint: string;
  readonly state: 'sent' | 'done' | 'unknown';
  /** The claim's random token: who may finish or renew it. */
  readonly owner: string;
  /** While `sent`: when the owner's lease ends unless renewed (a dead owner's ends on its own). */
  readonly until: number;
  /** When the first request began (epoch ms): what the read-back matches new items against. */
  readonly startedAt: number;
  readonly expiresAt: number;
  readonly status?: number;
  readonly body?: unknown;
  /** `unknown`: what the caller should check. */
  readonly check?: string;
}

export type KeyDocs = Pick<WorkStore, 'get' | 'update' | 'delete' | 'list'>;

const BUCKET = 'idempotency';

export interface KeySettings {
  readonly ttlMs: number;
  readonly leaseMs: number;
}

/** A claim: the record as stored after the attempt, and whether it is this caller's. */
export interface Claim {
  readonly mine: boolean;
  readonly record: KeyRecord;
}

export class IdempotencyKeys {
  private sweptAt = Date.now();

  constructor(
    private readonly docs: KeyDocs,
    readonly settings: KeySettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The stored name of a caller's key: hashed with its session, so neither is kept in clear. */
  static idOf(sessionId: string, key: string): string {
    return createHash('sha256').update(`${sessionId}\0${key}`).digest('base64url');
  }

  /** Claims the key as `sent` for a new request; an expired record counts as absent. */
  async claim(id: string, fingerprint: string): Promise<Claim> {
    const at = this.now();
    const fresh: KeyRecord = {
      fingerprint,
      state: 'sent',
      owner: token(),
      until: at + this.settings.leaseMs,
      startedAt: at,
      expiresAt: at + this.settings.ttlMs,
    };
    const stored = await this.docs.update<KeyRecord>(BUCKET, id, (current) => (current && current.expiresAt > at ? undefined : fresh));
    this.sweepNowAndThen();
    return { mine: stored?.owner === fresh.owner, record: stored ?? fresh };
  }

  /** Takes over a record whose owner is gone (its lease ended) or whose outcome is unknown, to read back. */
  async takeOver(id: string, seen: KeyRecord): Promise<KeyRecord | undefined> {
    const owner = token();
    const stored = await this.docs.update<KeyRecord>(BUCKET, id, (current) =>
      current && current.owner === seen.owner && current.state === seen.state
        ? { ...current, state: 'sent', owner, until: this.now() + this.settings.leaseMs }
        : undefined,
    );
    return stored?.owner === owner ? stored : undefined;
  }

  /** Keeps a running request's claim alive; answers the stop. */
  keepAlive(id: string, owner: string): () => void {
    const timer = setInterval(
      () => {
        void this.change(id, owner, (current) => ({ ...current, until: this.now() + this.settings.leaseMs })).catch(() => undefined);
      },
      Math.max(50, Math.floor(this.settings.leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** The answer to replay from now on. */
  done(id: string, owner: string, answer: { status?: number; body: unknown }): Promise<unknown> {
    return this.change(id, owner, (current) => ({ ...current, state: 'done', status: answer.status, body: answer.body }));
  }

  /** The write's outcome could not be read back: a repeat tries again, never re-sends. */
  unknown(id: string, owner: string, check: string): Promise<unknown> {
    return this.change(id, owner, (current) => ({ ...current, state: 'unknown', check }));
  }

  /** Nothing was written: the key is free for a new try. */
  async free(id: string, owner: string): Promise<void> {
    // Only the owner changes a `sent` record while its lease runs: reading then deleting is safe.
    if ((await this.docs.get<KeyRecord>(BUCKET, id))?.owner === owner) await this.docs.delete(BUCKET, id);
  }

  private change(id: string, owner: string, edit: (current: KeyRecord) => KeyRecord): Promise<unknown> {
    return this.docs.update<KeyRecord>(BUCKET, id, (current) => (current && current.owner === owner ? edit(current) : undefined));
  }

  /** Expired keys removed now and then (at most hourly), off the request's way. */
  private sweepNowAndThen(): void {
    const at = this.now();
    if (at - this.sweptAt < Math.min(3_600_000, this.settings.ttlMs)) return;
    this.sweptAt = at;
    void this.sweep(at).catch(() => undefined);
  }

  async sweep(at = this.now()): Promise<number> {
    let removed = 0;
    for (let after = ''; ; ) {
      const page = await this.docs.list<KeyRecord>(BUCKET, { after, limit: 500 });
      for (const { key, value } of page) if (value.expiresAt <= at && (await this.docs.delete(BUCKET, key))) removed++;
      if (page.length < 500) return removed;
      after = page[page.length - 1].key;
    }
  }
}

function token(): string {
  return randomBytes(12).toString('base64url');
}

/** Keys of one process, for an app built without the background layer (no store to share). */
export function memoryDocs(): KeyDocs {
  const docs = new Map<string, unknown>();
  const name = (bucket: string, key: string) => `${bucket}\0${key}`;
  return {
    get: async <T>(bucket: string, key: string) => docs.get(name(bucket, key)) as T | undefined,
    async update<T>(bucket: string, key: string, change: (current: T | undefined) => T | undefined) {
      const current = docs.get(name(bucket, key)) as T | undefined;
      const next = change(current);
      if (next === undefined) return current;
      docs.set(name(bucket, key), next);
      return next;
    },
    delete: async (bucket, key) => docs.delete(name(bucket, key)),
    async list<T>(bucket: string, options: { after?: string; limit?: number } = {}) {
      const prefix = `${bucket}\0`;
      const keys = [...docs.keys()]
        .filter((k) => k.startsWith(prefix))
        .map((k) => k.slice(prefix.length))
        .filter((k) => k > (options.after ?? ''))
        .sort();
      return keys.slice(0, options.limit ?? keys.length).map((key) => ({ key, value: docs.get(name(bucket, key)) as T }));
    },
  };
}
