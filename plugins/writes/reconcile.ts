// Lost answers reconciled, not guessed: when a write's call went out and its answer did not come
// back (a reset connection, a timeout, a 5xx after sending, a sidecar that timed out), the route's
// read-back check (reconcile-checks.ts) tells whether the platform did it.
import { serviceError } from '../../engine/service-errors.js';
import { UpstreamError, type RouteSpec } from '../../engine/types.js';
import { CHECK_OF_METHOD, CHECKS, type Check, type ReadBack } from './reconcile-checks.js';

/**
 * Failures that leave a sent write's outcome open: the connection or the answer was lost, or the
 * platform failed after taking the request. Any other failure is the platform's refusal (not
 * found, throttled, challenge, a bad request): nothing was written.
 */
const LOST = new Set([
  'ClientConnectionError',
  'ClientRequestTimeout',
  'ClientIncompleteReadError',
  'ClientJSONDecodeError',
  'ClientUnknownError',
  'UnknownError',
  'SidecarTimeout',
  'SidecarUnavailable',
]);

export function answerLost(error: unknown): boolean {
  return error instanceof UpstreamError && (LOST.has(error.excType) || error.bases.some((base) => LOST.has(base)));
}

/** The route's check: the manifest's `reconcile` (a name, or `none`), else its write method's; undefined for none. */
export function checkFor(route: RouteSpec): Check | undefined {
  const named = route.reconcile ?? route.upstreamMethods.map((method) => CHECK_OF_METHOD[method]).find(Boolean);
  if (named === undefined || named === 'none') return undefined;
  const check = CHECKS[named];
  if (!check) throw new Error(`${route.file}: ${route.key}: reconcile names no check "${named}" (known: none, ${Object.keys(CHECKS).join(', ')})`);
  return check;
}

/** Whether a route has a read-back check, or the manifest says it has none: what the boot's coverage test reads. */
export function reconcileDeclared(route: RouteSpec): boolean {
  return route.reconcile !== undefined || route.upstreamMethods.some((method) => CHECK_OF_METHOD[method] !== undefined);
}

export type Outcome =
  | { readonly state: 'done'; readonly value: unknown }
  | { readonly state: 'absent' }
  | { readonly state: 'unknown'; readonly check: string };

/** Reads back once: a check that fails, or a route with none, leaves the outcome unknown. */
export async function reconcile(route: RouteSpec, check: Check | undefined, input: ReadBack): Promise<Outcome> {
  if (!check) return { state: 'unknown', check: `the account on the platform (${route.key} has no read-back)` };
  try {
    const verdict = await check.run(input);
    return verdict.done ? { state: 'done', value: verdict.value } : { state: 'absent' };
  } catch {
    return { state: 'unknown', check: check.what(input.bag) };
  }
}

export function outcomeUnknown(route: RouteSpec, check: string): Error {
  return serviceError(
    'WriteOutcomeUnknown',
    `${route.key} was sent to the platform and its answer was lost; whether it happened could not be ` +
      `read back: check ${check}. A repeat with the same Idempotency-Key reads back again and never ` +
      `sends it twice.`,
  );
}
