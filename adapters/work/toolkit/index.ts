// The background toolkit beside the queue: back-off and jitter, session health and paced session
// work. Jobs, watchers, webhook deliveries and the queues themselves use these instead of copies.
export { DEFAULT_STEP_MS, deferralOf, jittered, stepOf } from './backoff.js';
export { healthOf, type SessionHealth } from './health.js';
export { PacedWork, pauseDetail, type Paced, type PacedDeps, type Pause } from './paced.js';
