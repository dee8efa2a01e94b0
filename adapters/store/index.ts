// Opens the session store a config names: always through the encrypting codec, with the key from
// SOCIALGATE_SESSION_KEY or the data folder's key file. Idle sessions expire (every use a minute
// apart renews them); logged-out records stay a day so operators can see what happened.
import { millisSetting } from '../../engine/config.js';
import { randomBytes } from 'node:crypto';
import type { Config, Logger, SessionRecord, SessionStore } from '../../engine/types.js';
import { encryptingCodec } from './crypto.js';
import { loadSessionKey } from './key.js';
import { createStore } from './keyv.js';

const DAY_MS = 86_400_000;
export const DEFAULT_IDLE_DAYS = 90;

export interface OpenOptions {
  /** Create the key file when missing (the server); operator tools pass false. */
  readonly createKey?: boolean;
  /** Where a failed expiry sweep is reported. */
  readonly log?: Logger;
}

export async function openStore(config: Config, options: OpenOptions = {}): Promise<SessionStore> {
  const key = sessionKeyFor(config, options.createKey ?? true);
  return createStore(config.store, {
    codec: encryptingCodec(key),
    ttl: expiryFor(idleDays(config.extra)),
    log: options.log,
    timeoutMs: storeTimeoutMs(config.extra),
  });
}

/** How long one store call may take before it fails as StoreUnavailable (503 with Retry-After). */
export function storeTimeoutMs(extra: Readonly<Record<string, string>>): number {
  return millisSetting(extra, 'STORE_TIMEOUT_MS', 500, 50, 60_000);
}

/** A memory store lives and dies with the process: without a configured key it needs no key file. */
export function sessionKeyFor(config: Config, create: boolean): Buffer {
  if (config.store.startsWith('memory:') && !config.extra.SESSION_KEY && !config.extra.SESSION_KEY_FILE) return randomBytes(32);
  return loadSessionKey({ setting: config.extra.SESSION_KEY, file: config.extra.SESSION_KEY_FILE, dataDir: config.dataDir, create });
}

export function expiryFor(days: number): (record: SessionRecord) => number | undefined {
  return (record) => {
    if (record.state === 'logged_out') return DAY_MS;
    return Math.max(1000, record.lastUsedAt + days * DAY_MS - Date.now());
  };
}

function idleDays(extra: Readonly<Record<string, string>>): number {
  const raw = extra.SESSION_IDLE_DAYS;
  if (raw === undefined || raw === '') return DEFAULT_IDLE_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new Error(`SOCIALGATE_SESSION_IDLE_DAYS must be a whole number of days from 1 to 3650, got "${raw}"`);
  return days;
}
