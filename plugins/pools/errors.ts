// The pools' errors: X-Pool reads, the pool routes and the jobs and console routes that name a pool.
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';
import type { RouteSpec } from '../../engine/types.js';

/** A GET that reads the platform may go to a pool member (X-Pool); the service's own records (jobs, webhooks) never do. */
export const poolReads = (route: RouteSpec): boolean => route.method === 'GET' && route.session !== 'none' && route.upstreamMethods.length > 0;
/** The console's routes that start jobs or change pools. */
export const consoleWork = (route: RouteSpec): boolean => route.area === 'console' && /^\/console\/(jobs|pools)/.test(route.path);

export const POOL_ERRORS = {
  PoolNameTaken: {
    status: 409,
    on: (route) => route.key === 'POST /pools' || route.key === 'POST /console/pools/members',
    when: 'Another owner has a pool of that name (pool names are shared by every owner).',
    hint: 'Choose another name.',
  },
  PoolNotAllowed: {
    status: 422,
    on: (route) => route.session === 'required' && !poolReads(route),
    when: 'A route that acts for one account (not a GET that reads the platform) was sent X-Pool instead of a session.',
    hint: 'Send X-Session-ID of the account that should act.',
  },
  PoolsUnavailable: { status: 503, on: poolReads, when: 'X-Pool was sent to an instance built without the background layer.' },
  PoolThrottled: {
    status: 429,
    on: (route) => poolReads(route) || route.area === 'jobs',
    when:
      'X-Pool: no member is healthy and some cool down after a throttle, or every healthy member has ' +
      'spent its read budget (the account-safety policy); Retry-After says when the first is back.',
    hint: 'Retry after the Retry-After delay, or add members to the pool.',
  },
  PoolUnavailable: {
    status: 503,
    on: (route) => poolReads(route) || route.area === 'jobs',
    when: 'X-Pool: no member is healthy, all are quarantined (challenge, logged out, revoked) or there are none.',
    retryAfter: 60,
    hint: "Resolve the members' challenges or log them in again (PATCH /auth/relogin), or add members.",
  },
  PoolNotFound: {
    status: 404,
    on: (route) => poolReads(route) || route.area === 'pools' || route.area === 'jobs' || consoleWork(route),
    when: 'X-Pool or `pool`/`name` names no pool.',
    hint: 'POST /pools creates one; GET /pools lists them.',
  },
  PoolMemberNotFound: { status: 404, on: (route) => route.area === 'pools' || consoleWork(route), when: 'The pool has no such member.' },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(POOL_ERRORS);
