// The session lease (engine/types/ports.ts) on the shared store's own server primitives, no lock
// of our own making: Redis SET NX PX with a random token, renewed while the call runs and released
// by a compare-and-delete script; PostgreSQL advisory locks on a connection held for the call.
// Nothing for SQLite or memory: one process serves those, and its lanes already order its calls.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { serviceError } from '../../engine/service-errors.js';
import type { Config, Logger, SessionLease } from '../../engine/types.js';
import { storeTimeoutMs } from './index.js';
import { millisSetting } from '../../engine/config.js';

export interface LeaseSettings {
  /** How long a lease lasts without renewal: a dead holder's lease ends this long after its last renewal. */
  readonly leaseMs: number;
  /** How long a call waits for another instance's call on the session before 503 SessionBusy. */
  readonly waitMs: number;
  /** One lease command's limit (the store's call timeout): past it the store counts as unreachable. */
  readonly commandMs: number;
}

export function leaseSettings(extra: Readonly<Record<string, string>>): LeaseSettings {
  return {
    leaseMs: millisSetting(extra, 'LEASE_MS', 15_000, 200, 3_600_000),
    waitMs: millisSetting(extra, 'LEASE_WAIT_MS', 30_000, 0, 3_600_000),
    commandMs: storeTimeoutMs(extra),
  };
}

/** The lease for a shared store, or none for a store one process serves. */
export function openLease(config: Config, log: Logger): SessionLease | undefined {
  const settings = leaseSettings(config.extra);
  if (/^rediss?:/.test(config.store)) return new RedisLease(config.store, settings, log);
  if (/^postgres(ql)?:/.test(config.store)) return new PgLease(config.store, settings, log);
  return undefined;
}

const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

abstract class WaitingLease implements SessionLease {
  private warned = 0;

  constructor(
    protected readonly settings: LeaseSettings,
    private readonly log: Logger,
  ) {}

  async hold<T>(key: string, work: () => Promise<T>): Promise<T> {
    let release: (() => Promise<void>) | undefined;
    try {
      release = await this.acquire(key);
    } catch (error) {
      if ((error as { excType?: string }).excType === 'SessionBusy') throw error;
      this.unreachable(error);
      return work(); // the store is down: availability, as with the cached session record
    }
    try {
      return await work();
    } finally {
      await release().catch(() => undefined); // an unreleased lease ends on its own
    }
  }

  /** Takes the lease, polling with a growing pause, until the wait is over; answers its release. */
  private async acquire(key: string): Promise<() => Promise<void>> {
    const deadline = Date.now() + this.settings.waitMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const release = await this.tryAcquire(key);
      if (release) return release;
      if (Date.now() + pause > deadline) {
        throw serviceError('SessionBusy', `Another instance is running a call for this session; it did not end within ${this.settings.waitMs} ms`, {
          retryAfter: 1,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  protected abstract tryAcquire(key: string): Promise<(() => Promise<void>) | undefined>;
  abstract close(): Promise<void>;

  private unreachable(error: unknown): void {
    if (Date.now() - this.warned < 60_000) return;
    this.warned = Date.now();
    this.log.warn('session lease store unreachable; calls run without the cross-instance lease', { error: error instanceof Error ? error.name : 'error' });
  }
}

/** How long a lease whose SET failed is looked for once the server answers again (a frozen server runs the SET when it thaws). */
const ORPHAN_WATCH_MS = 2000;

class RedisLease extends WaitingLease {
  /** ioredis is loaded only where a Redis store is configured. */
  private readonly client: Promise<Redis>;
  /**
   * Leases whose SET failed or timed out, by token: a frozen server still runs the SET when it
   * thaws, and nobody would release it, so the session's next call would wait out the lease time.
   * Released here (compare-and-delete with the token) as soon as the server answers.
   */
  private readonly orphans = new Map<string, { readonly name: string; until?: number }>();
  private sweeping?: NodeJS.Timeout;

  constructor(url: string, settings: LeaseSettings, log: Logger) {
    super(settings, log);
    // Fail at once while the server is away (no offline queue); reconnect in the background.
    this.client = import('ioredis').then(({ Redis: Client }) => {
      const redis = new Client(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: settings.commandMs, lazyConnect: false });
      redis.on('error', () => undefined);
      return redis;
    });
  }

  protected async tryAcquire(key: string): Promise<(() => Promise<void>) | undefined> {
    const redis = await this.client;
    const name = `socialgate:lease:${key}`;
    const token = randomBytes(12).toString('base64url');
    let taken: string | null;
    try {
      taken = await redis.set(name, token, 'PX', this.settings.leaseMs, 'NX');
    } catch (error) {
      this.orphaned(name, token);
      throw error;
    }
    if (taken !== 'OK') return undefined;
    // Renewed while the call runs, so a long call keeps its lease and a dead holder's ends soon.
    const renewal = setInterval(
      () => void redis.eval(RENEW, 1, name, token, String(this.settings.leaseMs)).catch(() => undefined),
      Math.max(50, this.settings.leaseMs / 3),
    );
    renewal.unref();
    return async () => {
      clearInterval(renewal);
      await redis.eval(RELEASE, 1, name, token);
    };
  }

  private orphaned(name: string, token: string): void {
    this.orphans.set(token, { name });
    this.sweeping ??= setInterval(() => void this.releaseOrphans(), 250);
    this.sweeping.unref();
  }

  /** Each orphan released once the server answers; one the server never ran is given up after ORPHAN_WATCH_MS. */
  private async releaseOrphans(): Promise<void> {
    const redis = await this.client;
    for (const [token, orphan] of this.orphans) {
      const released = await redis.eval(RELEASE, 1, orphan.name, token).catch(() => undefined);
      if (released === undefined) continue; // the server is still away
      orphan.until ??= Date.now() + ORPHAN_WATCH_MS;
      if (released === 1 || Date.now() > orphan.until) this.orphans.delete(token);
    }
    if (this.orphans.size === 0 && this.sweeping) {
      clearInterval(this.sweeping);
      this.sweeping = undefined;
    }
  }

  async close(): Promise<void> {
    if (this.sweeping) clearInterval(this.sweeping);
    (await this.client).disconnect();
  }
}

class PgLease extends WaitingLease {
  /** pg is loaded only where a PostgreSQL store is configured. */
  private readonly pool: Promise<pg.Pool>;

  constructor(url: string, settings: LeaseSettings, log: Logger) {
    super(settings, log);
    // A lock lives with its connection: held for the call, it ends if this process dies.
    this.pool = import('./pg-client.js').then(({ listeningPool }) =>
      listeningPool({
        connectionString: url,
        max: 64,
        connectionTimeoutMillis: Math.max(settings.commandMs, 1000),
        query_timeout: settings.commandMs,
        idleTimeoutMillis: 30_000,
      }),
    );
  }

  protected async tryAcquire(key: string): Promise<(() => Promise<void>) | undefined> {
    const client = await (await this.pool).connect();
    const id = lockId(key);
    try {
      const taken = (await client.query('SELECT pg_try_advisory_lock($1::bigint) AS taken', [id])).rows[0]?.taken === true;
      if (!taken) {
        client.release();
        return undefined;
      }
    } catch (error) {
      client.release(true);
      throw error;
    }
    return async () => {
      try {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [id]);
        client.release();
      } catch {
        client.release(true); // a broken connection takes its lock with it
      }
    };
  }

  async close(): Promise<void> {
    await (await this.pool).end().catch(() => undefined);
  }
}

/** A signed 64-bit advisory lock id from the key. */
function lockId(key: string): string {
  return createHash('sha256')
    .update('socialgate lease\0' + key)
    .digest()
    .readBigInt64BE(0)
    .toString();
}
