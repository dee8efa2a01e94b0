// Writes that happen exactly once (issue 26): what the writes module brings to the composition root.
import type { RouteGuard } from '../../engine/types.js';
import { deferGuard } from './defer.js';
import { idempotencyGuard } from './idempotency.js';
import { IDEMPOTENCY_SETTING_KEYS, idempotencySettings } from './idempotency-settings.js';
import { scheduleGuard, useClock } from './schedule.js';

export const WRITES_SETTING_KEYS = [...IDEMPOTENCY_SETTING_KEYS];

/** The Idempotency-Key guard; outermost of the product's guards (a replay spends no budget). */
export function idempotencyGuards(extra: Readonly<Record<string, string>>): readonly RouteGuard[] {
  return [idempotencyGuard(idempotencySettings(extra))];
}

/** The guards of writes that run later (deferred, then scheduled) on one clock: bin/compose.ts gives them the policy's. */
export function laterGuards(now: () => number = Date.now): RouteGuard[] {
  const on = (guard: RouteGuard): RouteGuard => ({
    name: guard.name,
    bind(route, services) {
      useClock(services, now);
      return guard.bind(route, services);
    },
  });
  return [on(deferGuard), on(scheduleGuard)];
}
