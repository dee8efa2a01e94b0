// Deferred writes: a write sent with `Prefer: respond-async` (RFC 7240) that the account-safety
// policy refuses for its budget or its activity window is kept as a scheduled write that runs when
// the refusal's Retry-After has passed (and again later if the policy still refuses then), answered
// 202 with `Preference-Applied: respond-async`. The guard wraps the policy's: it sits outside it
// (plugins/writes/module.ts orders it), inside the idempotency keys (a replay answers the stored 202).
import type { RouteGuard } from '../../engine/types.js';
import { type WritesParts, writesOf } from './schedule.js';
import { writeView } from './schedule-view.js';

/** The policy's refusals that time cures; any other error is answered as it is. */
export const DEFERRABLE: ReadonlySet<string> = new Set(['ActionBudgetExceeded', 'OutsideActivityWindow']);

export const deferGuard = (writes: WritesParts): RouteGuard => ({
  name: 'writes.defer',
  bind(route, services) {
    if (route.method === 'GET' || route.session === 'none') return undefined;
    return async (call, next) => {
      if (call.origin === 'background' || !prefersAsync(call.header?.('prefer') ?? '')) return next();
      try {
        return await next();
      } catch (error) {
        const refused = services.routes.statusOf(error);
        if (!DEFERRABLE.has(refused.excType) || refused.retryAfter === undefined) throw error;
        const write = await writesOf(writes).create(call, 'deferred', writes.now() + refused.retryAfter * 1000, refused.excType);
        call.reply.status = 202;
        call.reply.headers['Preference-Applied'] = 'respond-async';
        return writeView(write);
      }
    };
  },
});

/** Whether a Prefer header (preferences separated by commas, each `name[=value][; params]`) asks for respond-async. */
export function prefersAsync(header: string): boolean {
  return header.split(',').some((preference) => preference.split(/[;=]/)[0].trim().toLowerCase() === 'respond-async');
}
