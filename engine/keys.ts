// API keys: the legacy single key (SOCIALGATE_API_KEY, every scope) and the named keys of the key
// store, each with scopes and optional limits. The store keeps only each key's SHA-256; this ring
// keeps the set cached for the session-record TTL (a key revoked elsewhere stops working within it)
// and serves the cached set through a store outage. Wrong keys are counted per client address:
// past ten a minute every try from that address waits for the minute's end, unchecked.
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { LEGACY_KEY_NAME, legacyGrant } from './owner.js';
import { invalidParams, serviceError } from './service-errors.js';
import type { KeyGrant, KeyScope, KeyStore, StoredKey } from './types.js';

export const KEY_PREFIX = 'sgk_';
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** What listings show of a key: never its hash. */
export function keyView(key: StoredKey): Record<string, unknown> {
  return { name: key.name, scopes: key.scopes, accounts: key.accounts ?? null, pools: key.pools ?? null, created_at: new Date(key.createdAt).toISOString() };
}

/** The limits a key has, and only those (an absent list is no limit). */
const limitsOf = (key: { accounts?: readonly string[]; pools?: readonly string[] }) => ({
  ...(key.accounts ? { accounts: [...key.accounts] } : {}),
  ...(key.pools ? { pools: [...key.pools] } : {}),
});

const grantOf = (key: StoredKey): KeyGrant => ({ name: key.name, scopes: key.scopes, ...limitsOf(key) });

export interface NewKey {
  readonly name: string;
  readonly scopes: readonly KeyScope[];
  readonly accounts?: readonly string[];
  readonly pools?: readonly string[];
}

/** How long a request waits for a stale key set's refresh before it uses the last set. */
const STALE_WAIT_MS = 50;

export class KeyRing {
  private cached?: { keys: readonly StoredKey[]; byHash: Map<string, StoredKey>; at: number };
  private reading?: Promise<readonly StoredKey[]>;
  private failing = false;

  constructor(
    private readonly store: KeyStore,
    private readonly legacy: string | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether requests must carry a key: the legacy key is set or the store holds a named one. */
  async required(): Promise<boolean> {
    return !!this.legacy || (await this.keys()).length > 0;
  }

  /** required() answered at once from a fresh cache (the hot path: no promise); undefined when the store must be asked. */
  requiredNow(): boolean | undefined {
    if (this.legacy) return true;
    const cached = this.cached;
    return cached && this.now() - cached.at < this.ttlMs ? cached.keys.length > 0 : undefined;
  }

  /** The grant of a key, or undefined for a wrong or revoked one. */
  async verify(given: string): Promise<KeyGrant | undefined> {
    if (this.legacy && sameSecret(given, this.legacy)) return legacyGrant();
    if (!given.startsWith(KEY_PREFIX)) return undefined;
    await this.keys();
    const found = this.cached?.byHash.get(hashKey(given));
    return found && grantOf(found);
  }

  /** A named key's grant and stored hash (the console's cookie is made under it), from the cached set. */
  async named(name: string): Promise<{ grant: KeyGrant; hash: string } | undefined> {
    const found = (await this.keys()).find((key) => key.name === name);
    return found && { grant: grantOf(found), hash: found.hash };
  }

  async list(): Promise<Record<string, unknown>[]> {
    return (await this.keys(true)).map(keyView);
  }

  /** A new named key; the answer holds the key itself, the only time it exists outside its holder. */
  async add(init: NewKey): Promise<{ key: string; record: StoredKey }> {
    checkName(init.name);
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const record: StoredKey = { name: init.name, hash: hashKey(key), scopes: [...new Set(init.scopes)], createdAt: this.now(), ...limitsOf(init) };
    let taken = false;
    const keys = await this.store.change((current) => {
      taken = current.some((k) => k.name === init.name);
      return taken ? current : [...current, record];
    });
    if (taken) throw serviceError('ApiKeyNameTaken', `A key named "${init.name}" exists; revoke it first or choose another name`);
    this.remember(keys);
    return { key, record };
  }

  async revoke(name: string): Promise<boolean> {
    let found = false;
    const keys = await this.store.change((current) => {
      found = current.some((k) => k.name === name);
      return current.filter((k) => k.name !== name);
    });
    this.remember(keys);
    return found;
  }

  /**
   * The set, from the cache while it is fresh. A stale cache is read again from the store, but a
   * request waits for that read at most STALE_WAIT_MS, and not at all while the store is failing:
   * the last set answers meanwhile, so no request waits out a store timeout for keys the instance
   * already knows (a revoke elsewhere then takes effect once the store answers again).
   */
  private async keys(fresh = false): Promise<readonly StoredKey[]> {
    const cached = this.cached;
    if (cached && !fresh && this.now() - cached.at < this.ttlMs) return cached.keys;
    if (!cached || fresh) return this.refresh();
    const reading = this.refresh().catch(() => cached.keys);
    if (this.failing) return cached.keys;
    // A healthy store answers in a few ms; a request waits no longer than STALE_WAIT_MS for it.
    return Promise.race([reading, sleep(STALE_WAIT_MS).then(() => cached.keys)]);
  }

  /** One read of the store at a time; its answer replaces the cache, its failure marks the store failing. */
  private refresh(): Promise<readonly StoredKey[]> {
    this.reading ??= this.store
      .all()
      .then(
        (keys) => ((this.failing = false), this.remember(keys)),
        (error: unknown) => ((this.failing = true), Promise.reject(error)),
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  private remember(keys: readonly StoredKey[]): readonly StoredKey[] {
    this.cached = { keys, byHash: new Map(keys.map((k) => [k.hash, k])), at: this.now() };
    return keys;
  }
}

/** Keys that live and die with the process: for an app built without a shared store (tests, embedding). */
export function memoryKeyStore(): KeyStore {
  let keys: readonly StoredKey[] = [];
  return {
    all: async () => keys,
    change: async (edit) => (keys = edit(keys)),
    close: async () => undefined,
  };
}

function checkName(name: string): void {
  if (name === LEGACY_KEY_NAME || !NAME.test(name)) {
    throw invalidParams([{ param: 'name', problem: `1 to 64 letters, digits, dots, dashes or underscores, and not "${LEGACY_KEY_NAME}"` }]);
  }
}

/** Wrong keys per client address in the current minute: past the limit every try waits for the minute's end. */
export class WrongKeys {
  static readonly PER_MINUTE = 10;
  private readonly windows = new LRUCache<string, { start: number; count: number }>({ max: 10_000 });

  constructor(private readonly now: () => number = Date.now) {}

  /** Throws 429 with Retry-After while the address is past the limit; call before checking a key. */
  check(address: string): void {
    const window = this.current(address);
    if (window.count < WrongKeys.PER_MINUTE) return;
    const retryAfter = Math.max(1, Math.ceil((window.start + 60_000 - this.now()) / 1000));
    throw serviceError('ApiKeyAttemptsExceeded', `More than ${WrongKeys.PER_MINUTE} wrong API keys from this address this minute; try again later`, {
      retryAfter,
    });
  }

  wrong(address: string): void {
    this.current(address).count++;
  }

  private current(address: string): { start: number; count: number } {
    const now = this.now();
    let window = this.windows.get(address);
    if (!window || now - window.start >= 60_000) this.windows.set(address, (window = { start: now, count: 0 }));
    return window;
  }
}

/** Compares two secrets in constant time (by their digests, so their lengths do not show). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
