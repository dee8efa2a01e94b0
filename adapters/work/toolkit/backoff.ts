// Back-off and jitter for every kind of background work (the queue's retries, jobs' pacing,
// watchers' intervals, realtime reconnects, webhook deliveries): one rule each, BullMQ-style, as
// small pure functions with their case tables (test/adapters/work/toolkit.test.ts).

/** Used when a schedule of steps is empty. */
export const DEFAULT_STEP_MS = 1000;

/**
 * The wait after the `failures`-th failure (1 for the first) in a schedule of steps: the first
 * step after the first failure, the last step repeating once they are spent.
 */
export function stepOf(steps: readonly number[], failures: number): number {
  if (steps.length === 0) return DEFAULT_STEP_MS;
  return steps[Math.min(Math.max(0, Math.floor(failures) - 1), steps.length - 1)];
}

/**
 * An interval varied by up to ±`spread` of itself (0.2: 80 % to 120 %), so work started together
 * does not beat together. `random` is in [0, 1) (Math.random; a table test passes its own).
 */
export function jittered(ms: number, spread: number, random: () => number = Math.random): number {
  if (!(ms > 0)) return 0;
  const fraction = Math.min(1, Math.max(0, spread));
  return Math.max(0, Math.round(ms * (1 - fraction + random() * 2 * fraction)));
}

/**
 * A refusal that says when to come back (429 or 503 with Retry-After, whether from the platform,
 * a webhook receiver or a policy of this service): the milliseconds to wait, or undefined when the
 * refusal is a failure like any other.
 */
export function deferralOf(status: number, retryAfterSeconds: number | undefined): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  if (retryAfterSeconds === undefined || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds < 0) return undefined;
  return Math.round(retryAfterSeconds * 1000);
}
