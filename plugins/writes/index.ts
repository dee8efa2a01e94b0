// Writes that happen exactly once (issue 26): what the writes module brings to the composition root.
import type { RouteGuard } from '../../engine/types.js';
import { idempotencyGuard } from './idempotency.js';
import { IDEMPOTENCY_SETTING_KEYS, idempotencySettings } from './idempotency-settings.js';

export const WRITES_SETTING_KEYS = [...IDEMPOTENCY_SETTING_KEYS];

/** The Idempotency-Key guard; outermost of the product's guards (a replay spends no budget). */
export function idempotencyGuards(extra: Readonly<Record<string, string>>): readonly RouteGuard[] {
  return [idempotencyGuard(idempotencySettings(extra))];
}
