// The background toolkit beside the queue: back-off and jitter, session health, paced session
// work and the bounded wait of a close. Jobs, watchers, webhook deliveries and the queues themselves use these instead of copies.
export { DEFAULT_STEP_MS, deferralOf, jittered, stepOf } from './backoff.js';
export { healthOf, type SessionHealth } from './health.js';
export { PacedWork, pauseDetail, type Paced, type PacedDeps, type Pause } from './paced.js';
export { settledWithin } from './settled.js';
