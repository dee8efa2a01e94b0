// Writes that happen exactly once (issue 26): what the writes module brings to the composition root.
import type { Config, OrderedGuard } from '../../engine/types.js';
import { deferGuard } from './defer.js';
import { scheduleGuard, type WritesParts } from './schedule.js';
import { idempotencyGuard } from './idempotency.js';
import { IDEMPOTENCY_SETTING_KEYS, idempotencySettings } from './idempotency-settings.js';

export const WRITES_SETTING_KEYS = [...IDEMPOTENCY_SETTING_KEYS];

/**
 * The writes module's guards in the product's order (a lower order is further out; the policy's are
 * 40 and 50, plugins/policy/module.ts): the Idempotency-Key first, since a replay spends no budget;
 * then a deferred write, which catches the policy's refusal, and a scheduled one, which spends no
 * budget now.
 */
export function writeGuards(config: Config, writes: WritesParts): readonly OrderedGuard[] {
  return [
    { order: 10, guard: idempotencyGuard(idempotencySettings(config.extra)) },
    { order: 20, guard: deferGuard(writes) },
    { order: 30, guard: scheduleGuard(writes) },
  ];
}
