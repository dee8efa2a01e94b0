// Freeze only what the platform objected to. When the platform blocks one kind of action
// (FeedbackRequired: "Try Again Later", the errors table's `session: freeze`), the route's action
// class is frozen for that session, for the platform's hint or else a back-off that doubles when the
// class is blocked again within a day; the session's other classes go on. Account-wide throttles
// (PleaseWaitFewMinutes, HTTP 429) stay the governor's (engine/sessions.ts) and pause everything.
//
// The freeze is kept in the session record (as the throttle is), so it survives a restart and every
// instance sharing the store sees it once it re-reads the record; the record's update emits
// session.state.changed with the class (FROZEN_FIELD, ./frozen.ts). The guard refuses a frozen class's
// calls with 429 ActionFrozen before any resolver or upstream call.
import { errorName } from '../../engine/log.js';
import { serviceError } from '../../engine/service-errors.js';
import type { ActionClass, GuardedCall, GuardNext, RouteGuard, Services, SessionRecord } from '../../engine/types.js';

import type { ClassFreeze } from './frozen.js';
export { frozenClasses, type FrozenClass } from './frozen.js';

export const FREEZE_SETTING_KEYS = ['FREEZE_BACKOFF_SECONDS'];

export interface FreezeSettings {
  /** How long a class freezes when the platform's block carries no hint of its own (seconds). */
  readonly backoffSeconds: number;
}

/** A freeze that follows another of its class within this long of its end lasts twice as long. */
const REPEAT_WINDOW_MS = 86_400_000;
/** The longest freeze a back-off reaches. */
const MAX_FREEZE_SECONDS = 86_400;

/** SOCIALGATE_FREEZE_BACKOFF_SECONDS (default 3600); a bad value stops the start by name. */
export function freezeSettings(extra: Readonly<Record<string, string>>): FreezeSettings {
  const raw = extra.FREEZE_BACKOFF_SECONDS;
  if (raw === undefined || raw === '') return { backoffSeconds: 3600 };
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_FREEZE_SECONDS) {
    throw new Error(`SOCIALGATE_FREEZE_BACKOFF_SECONDS must be a whole number of seconds from 1 to ${MAX_FREEZE_SECONDS}, got "${raw}"`);
  }
  return { backoffSeconds: seconds };
}

/**
 * The guard, inside the writes module's and outside the budgets (FREEZE_ORDER, ./module.ts). Routes
 * that never reach the platform are left unbound, and so is the session's own management (auth:
 * relogin, settings, challenge), which a freeze must never lock out.
 */
export function freezeGuard(freezer: Freezer): RouteGuard {
  const step = freezer.step;
  return {
    name: 'freeze',
    bind(route) {
      if (route.session === 'none' || route.upstreamMethods.length === 0 || route.area === 'auth') return undefined;
      return (call, next) => step(route.action, call, next);
    },
  };
}

/** One app's freezes: the refusal, the write after a block, the metric (made by the policy module's start). */
export class Freezer {
  /** Freeze writes per session, one after another, so that two classes blocked at once both stay frozen. */
  private readonly writing = new Map<string, Promise<unknown>>();
  private readonly counted: (labels: Readonly<Record<string, string>>) => void;

  constructor(
    private readonly services: Services,
    private readonly settings: FreezeSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.counted = services.app.counter(
      'socialgate_action_freezes_total',
      'Action classes frozen after the platform blocked them (FeedbackRequired), by class',
      ['action'],
    );
  }

  readonly step = (action: ActionClass, call: GuardedCall, next: GuardNext): Promise<unknown> => {
    const session = call.session;
    if (!session) return next();
    if (session.frozen) this.refuseFrozen(session, action);
    return next().catch((error: unknown) => this.failed(session, action, error));
  };

  private refuseFrozen(session: SessionRecord, action: ActionClass): void {
    const freeze = session.frozen?.[action];
    const left = (freeze?.until ?? 0) - this.now();
    if (left <= 0) return;
    const until = new Date(freeze!.until).toISOString();
    throw serviceError('ActionFrozen', `The platform blocked this session's ${action} actions; they are frozen until ${until} while its other actions go on`, {
      retryAfter: Math.ceil(left / 1000),
      extra: { action, frozen_until: until },
    });
  }

  /** A block of the class freezes it, and the caller's answer says for how long; any other failure passes as it is. */
  private async failed(session: SessionRecord, action: ActionClass, error: unknown): Promise<never> {
    const mapped = this.services.routes.statusOf(error);
    if (mapped.session !== 'freeze') throw error;
    const hint = (error as { retryAfter?: number }).retryAfter;
    try {
      const seconds = await this.freeze(session.id, session, action, hint, mapped.excType);
      (error as { retryAfter?: number }).retryAfter = seconds;
    } catch (failure) {
      this.services.log.warn('an action class freeze could not be saved', { action, error: errorName(failure) });
    }
    throw error;
  }

  private freeze(id: string, seen: SessionRecord, action: ActionClass, hint: number | undefined, reason: string): Promise<number> {
    const write = async (): Promise<number> => {
      const latest = (await this.services.sessions.find(id).catch(() => undefined)) ?? seen;
      const now = this.now();
      const freeze = nextFreeze(latest.frozen?.[action], hint, this.settings.backoffSeconds, now);
      await this.services.sessions.update(latest, { frozen: { ...kept(latest.frozen, now), [action]: freeze } }, reason);
      this.counted({ action });
      return freeze.seconds;
    };
    const done = (this.writing.get(id) ?? Promise.resolve()).then(write);
    const settled = done.catch(() => undefined);
    this.writing.set(id, settled);
    void settled.then(() => this.writing.get(id) === settled && this.writing.delete(id));
    return done;
  }
}

/** The platform's hint when it gave one; else the back-off, doubled when the class was frozen within the last day. */
export function nextFreeze(previous: ClassFreeze | undefined, hint: number | undefined, backoffSeconds: number, now: number): ClassFreeze {
  const again = previous !== undefined && now - previous.until < REPEAT_WINDOW_MS;
  const seconds = hint && hint > 0 ? Math.ceil(hint) : again ? Math.min(previous.seconds * 2, MAX_FREEZE_SECONDS) : backoffSeconds;
  return { until: now + seconds * 1000, seconds };
}

/** Past freezes still within the repeat window (a back-off remembers them); older ones are dropped. */
function kept(frozen: SessionRecord['frozen'], now: number): Record<string, ClassFreeze> {
  return Object.fromEntries(Object.entries(frozen ?? {}).filter(([, freeze]) => now - freeze.until < REPEAT_WINDOW_MS));
}
