// The account-safety policy as a route guard (engine/types/guards.ts): every route that acts on the
// platform for a session, whoever calls it (HTTP, MCP tools, jobs, pools, watchers' reads), spends
// its action class's budget here, before any resolver or upstream call, and is refused with 429
// when the budget or the activity window says no.
import { HttpError } from '../../engine/http-error.js';
import { serviceError } from '../../engine/service-errors.js';
import type { GuardedCall, GuardStep, RouteGuard, RouteSpec } from '../../engine/types.js';
import type { Standing } from './entry.js';
import type { Policy } from './policy.js';

/** Routes that reach the platform for a session: the ones a budget applies to. */
export const budgeted = (route: RouteSpec): boolean => route.session !== 'none' && route.upstreamMethods.length > 0;

/** The guard of one app's policy (the module's start made it; its stop closes it). */
export function policyGuard(policy: Policy): RouteGuard {
  return { name: 'policy', bind: (route) => (budgeted(route) ? stepFor(route, policy) : undefined) };
}

function stepFor(route: RouteSpec, policy: Policy): GuardStep {
  const cls = route.action;
  const headers = rateLimitWriter(cls);
  const refused = (call: GuardedCall, error: unknown): Promise<never> => {
    const refusal = error instanceof HttpError ? error : unavailable(error);
    if (refusal.excType === 'ActionBudgetExceeded') {
      const now = policy.now();
      headers(call.reply.headers, refusalStanding(refusal, now), now);
    }
    return Promise.reject(refusal);
  };
  // No await on the hot path: a held slot admits synchronously. One clock read serves the policy and the headers.
  return (call, next) => {
    if (!call.session) return next();
    const now = policy.now();
    let standing: ReturnType<Policy['admit']>;
    try {
      standing = policy.admit(call.session, cls, call.origin === 'background' ? 'background' : 'interactive', now);
    } catch (error) {
      return refused(call, error);
    }
    if (standing instanceof Promise)
      return standing.then(
        (settled) => {
          if (settled) headers(call.reply.headers, settled, policy.now());
          return next();
        },
        (failure: unknown) => refused(call, failure),
      );
    if (standing) headers(call.reply.headers, standing, now);
    return next();
  };
}

/** The counters' store failed: a fast, named 503 (a write is never sent unaccounted). */
function unavailable(error: unknown): HttpError {
  return serviceError('StoreUnavailable', `The policy's counters could not be reached (${error instanceof Error ? error.message : 'store error'})`);
}

function refusalStanding(error: HttpError, now: number): Standing {
  const extra = error.extra ?? {};
  return { window: extra.window as Standing['window'], limit: Number(extra.limit), remaining: 0, resetAt: Date.parse(String(extra.reset_at)) || now };
}

const WINDOW_SECONDS: Readonly<Record<Standing['window'], number>> = { minute: 60, hour: 3600, day: 86400 };

/**
 * The IETF httpapi rate-limit header fields (draft-ietf-httpapi-ratelimit-headers-10): the policy
 * as quota `q` per window `w` seconds, and the standing as remaining `r` and seconds to reset `t`,
 * both for the class's tightest window, named "<class>-<window>".
 */
export function rateLimitHeaders(headers: Record<string, string>, cls: string, standing: Standing, now = Date.now()): void {
  rateLimitWriter(cls)(headers, standing, now);
}

export type RateLimitWriter = (headers: Record<string, string>, standing: Standing, now: number) => void;

/**
 * rateLimitHeaders for one class (a route's guard keeps one): RateLimit-Policy is kept per (window,
 * limit); RateLimit moves with every call (the remaining count) and every second (`t`).
 */
export function rateLimitWriter(cls: string): RateLimitWriter {
  let policy = NO_POLICY;
  let values = NO_VALUES;
  let seen = NO_VALUES;
  /**
   * The RateLimit value. Made whole, a new count is a number made a string, two joins and the
   * flattening Node's header checks want: in a profile under load, the joins and the flattening
   * were 0.8 µs of a counted call. The count falls by one a call and `t` moves once a second, so
   * the second call to meet a hundred in the same second makes that hundred's values at once, in
   * one flat string, and each call takes its own as a slice of it (a view: nothing joined, copied
   * or flattened). The first call makes only its own, so a route called once in a while never
   * makes a hundred.
   */
  const counted = (remaining: number, seconds: number): string => {
    if (remaining < 100 || !Number.isSafeInteger(remaining)) return flat(`${policy.prefix}${remaining};t=${seconds}`);
    const high = Math.floor(remaining / 100);
    if (values.high !== high || values.seconds !== seconds) {
      if (seen.high !== high || seen.seconds !== seconds) {
        seen = { high, seconds, text: '', width: 0 };
        return flat(`${policy.prefix}${remaining};t=${seconds}`);
      }
      values = hundredValues(`${policy.prefix}${high}`, `;t=${seconds}`, high, seconds);
    }
    const at = (remaining - high * 100) * values.width;
    return values.text.slice(at, at + values.width);
  };
  return (headers, standing, now) => {
    const { window, limit } = standing;
    if (policy.window !== window || policy.limit !== limit) {
      policy = { window, limit, text: `"${cls}-${window}";q=${limit};w=${WINDOW_SECONDS[window]}`, prefix: `"${cls}-${window}";r=` };
      values = seen = NO_VALUES;
    }
    headers['RateLimit-Policy'] = policy.text;
    headers.RateLimit = counted(standing.remaining, Math.max(0, Math.ceil((standing.resetAt - now) / 1000)));
  };
}

const NO_POLICY = { window: '', limit: -1, text: '', prefix: '' };

/** One hundred's RateLimit values in one second: `text` holds those of xx00 to xx99 in turn, each `width` long. */
interface HundredValues {
  readonly high: number;
  readonly seconds: number;
  readonly text: string;
  readonly width: number;
}

const NO_VALUES: HundredValues = { high: -1, seconds: -1, text: '', width: 0 };

/**
 * `head` is the prefix with the hundreds, `tail` the `;t=` part: a hundred's values all have one
 * length. One join with `tail + head` between the digits makes them in one flat string (joined one
 * by one, the hundred took 26 µs under load).
 */
function hundredValues(head: string, tail: string, high: number, seconds: number): HundredValues {
  return { high, seconds, text: flat(head + TWO_DIGITS.join(tail + head) + tail), width: head.length + 2 + tail.length };
}

/** "00" to "99": a count's last two digits. */
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/**
 * The string made flat before Node reads it: a joined string is a rope, which Node's header checks
 * and its write each walk again (asking for one character makes V8 flatten it once, in place). In
 * bare node:http, by the paired method, the same header cost 1.2 µs flat against 1.8-2.4 as a rope.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}
