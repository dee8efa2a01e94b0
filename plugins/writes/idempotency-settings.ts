// The idempotency keys' settings: how long a key is kept, and how long a claim outlives a dead owner.
import { millisSetting } from '../../engine/config.js';
import type { IdempotencySettings } from './idempotency.js';

export const IDEMPOTENCY_SETTING_KEYS = ['IDEMPOTENCY_TTL_HOURS', 'IDEMPOTENCY_LEASE_MS'];

export function idempotencySettings(extra: Readonly<Record<string, string>>): IdempotencySettings {
  const raw = extra.IDEMPOTENCY_TTL_HOURS;
  const hours = raw === undefined || raw === '' ? 24 : Number(raw);
  if (!Number.isFinite(hours) || hours <= 0 || hours > 720)
    throw new Error(`SOCIALGATE_IDEMPOTENCY_TTL_HOURS must be a number of hours above 0 and at most 720, got "${raw}"`);
  // Renewed every third of it while the request runs: a killed owner's claim is read back after this long.
  return { ttlMs: Math.round(hours * 3_600_000), leaseMs: millisSetting(extra, 'IDEMPOTENCY_LEASE_MS', 15_000, 200, 600_000) };
}
