// Paced session work: what every kind of background work that calls the platform for a session
// (jobs, watchers, scheduled writes) does around its call, written once. The call itself goes
// through the route runner (services.routes.run), so through the session's lane, its governor and
// the route guards (policy, idempotency). Around it:
// - before: a session that is not healthy (throttled, challenged, logged out, revoked) is left alone;
//   the work pauses until the governor's time or a recheck, without calling the platform;
// - after a failure: the session's health is read again (the call may have throttled it), and any
//   refusal that says when to come back (429 or 503 with Retry-After: the platform's throttle, a
//   pool's, or this service's policy: ActionBudgetExceeded, OutsideActivityWindow, ActionFrozen)
//   pauses the work until then instead of failing it;
// - pacing: the spacing between two runs of one session.
import type { BackgroundRoutes, SessionRecord, SessionService } from '../../../engine/types.js';
import { deferralOf } from './backoff.js';
import { healthOf } from './health.js';

export { healthOf, type SessionHealth } from './health.js';

/** Why work waits, and until when (epoch ms; absent: the work's own recheck interval). */
export interface Pause {
  /** throttled, challenge, logged_out, revoked (the session's health), or deferred (a refusal with Retry-After). */
  readonly reason: string;
  readonly until?: number;
  readonly detail?: string;
  /** The error code of a refusal (deferred). */
  readonly exc_type?: string;
}

/** A paced run's result: its value, or the pause that stands in for it. */
export type Paced<T> = { readonly value: T } | { readonly pause: Pause };

export interface PacedDeps {
  readonly sessions: Pick<SessionService, 'find'>;
  readonly routes: Pick<BackgroundRoutes, 'statusOf'>;
  readonly now?: () => number;
}

export class PacedWork {
  private readonly now: () => number;
  /** When each session (or pool member) last ran, for the spacing between runs. */
  private readonly lastRun = new Map<string, number>();

  constructor(private readonly deps: PacedDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The session's record is healthy: the work runs. Otherwise why it waits (never a platform call). */
  blocked(record: SessionRecord | undefined): Pause | undefined {
    const health = healthOf(record, this.now());
    if (health.state === 'healthy') return undefined;
    return { reason: health.reason!, until: health.until, detail: pauseDetail(health.reason!) };
  }

  /** After a failed run: a pause when the session fell ill or the refusal said when to come back; undefined for a failure. */
  async troubleOf(record: SessionRecord, error: unknown): Promise<Pause | undefined> {
    const { status, excType, retryAfter } = this.deps.routes.statusOf(error);
    const ill = this.blocked(await this.deps.sessions.find(record.id));
    if (ill) return ill;
    if (status === 401) return { reason: 'logged_out', detail: pauseDetail('logged_out') };
    const wait = deferralOf(status, retryAfter);
    if (wait === undefined) return undefined;
    const detail = `Refused with ${excType}; the work resumes in ${Math.ceil(wait / 1000)} s.`;
    return { reason: REFUSALS[excType] ?? 'deferred', until: this.now() + wait, exc_type: excType, detail };
  }

  /** The work for a session, paused rather than run or failed when the session or a refusal says so; other failures throw. */
  async run<T>(record: SessionRecord | undefined, work: (record: SessionRecord) => Promise<T>): Promise<Paced<T>> {
    const ill = this.blocked(record);
    if (ill) return { pause: ill };
    try {
      return { value: await work(record!) };
    } catch (error) {
      const pause = await this.troubleOf(record!, error);
      if (pause) return { pause };
      throw error;
    }
  }

  /** Milliseconds before `key` (a session id) may run again, `spacingMs` after its last run; 0 when it may now. */
  waitFor(key: string, spacingMs: number): number {
    const last = this.lastRun.get(key);
    if (last === undefined || spacingMs <= 0) return 0;
    return Math.max(0, last + spacingMs - this.now());
  }

  /** Notes that `key` runs now. */
  ran(key: string): void {
    this.lastRun.set(key, this.now());
  }
}

/**
 * The account-safety refusals by the reason a paused job shows (`budget`: a spent budget, `window`: a
 * closed activity window, `frozen`: a class the platform blocked); any other refusal with a
 * Retry-After is `deferred`. A pool job whose member is refused for one of these asks the pool again
 * at once (it chooses a member with budget left).
 */
const REFUSALS: Readonly<Record<string, string>> = { ActionBudgetExceeded: 'budget', OutsideActivityWindow: 'window', ActionFrozen: 'frozen' };

/** What an operator is told about a pause (jobs show it; the console too). */
export function pauseDetail(reason: string): string {
  switch (reason) {
    case 'throttled':
      return 'The platform throttled this session; the work resumes when the governor allows.';
    case 'challenge':
      return 'The session has a challenge to resolve (POST /auth/challenge/resolve); the work resumes once it is resolved.';
    default:
      return 'The session is logged out or revoked; log in again (PATCH /auth/relogin) and the work resumes.';
  }
}
