// The governor: the steps engine/sessions.ts takes around each session call. A session the platform
// throttled is not called again until its back-off has passed (it answers 429 at once); a challenge
// marks it pending; a success ends either state. A throttle or challenge is written at once (through
// Sessions.update: the store, the cache, the listeners), a success with the session's use, behind.
import { serviceError } from './service-errors.js';
import type { SessionRecord, SessionService, SessionState, UpstreamError } from './types.js';
import type { UsedEntry, UseWriter } from './session-uses.js';

export interface GovernorOptions {
  /** Seconds to back off when a throttle error carries no hint of its own. */
  readonly throttleBackoffSeconds: number;
  /** Whether an upstream failure is the throttling family (429): a number (its mapped Retry-After) when it is. */
  readonly throttled: (error: UpstreamError) => number | undefined;
  /** Whether an upstream failure leaves the session waiting for a challenge (the error registry's `session: challenge`). */
  readonly challenged: (error: UpstreamError) => boolean;
}

export interface GovernorDeps {
  readonly now: () => number;
  /** Writes a state change at once: the store, the cached record, the listeners (Sessions.update). */
  readonly update: SessionService['update'];
  /** The write-behind that records a use (engine/session-uses.ts). */
  readonly uses: UseWriter;
}

const TOUCH_EVERY_MS = 60_000;

export class Governor {
  constructor(
    private readonly options: GovernorOptions,
    private readonly deps: GovernorDeps,
  ) {}

  /** A throttled session answers 429 at once, without calling the upstream. */
  admit(record: SessionRecord, now = this.deps.now()): void {
    if (record.throttledUntil === undefined) return;
    const left = record.throttledUntil - now;
    if (left > 0) {
      throw serviceError('SessionThrottled', 'The platform throttled this session; calls are paused until the back-off ends', {
        retryAfter: Math.ceil(left / 1000),
      });
    }
  }

  /**
   * Throttling pauses the session (the upstream's hint, else the configured back-off, which the
   * answer's Retry-After then states too); a challenge marks it pending. Returns the new state.
   */
  async onUpstreamError(error: UpstreamError, entry: UsedEntry): Promise<SessionState | undefined> {
    if (this.options.throttled(error) !== undefined) {
      const seconds = error.retryAfter ?? this.options.throttleBackoffSeconds;
      await this.deps.update(entry.record, { state: 'throttled', throttledUntil: this.deps.now() + seconds * 1000 }, error.excType);
      if (error.retryAfter === undefined) (error as { retryAfter?: number }).retryAfter = seconds;
      return 'throttled';
    }
    if (this.options.challenged(error)) {
      if (entry.record.state !== 'challenge') await this.deps.update(entry.record, { state: 'challenge' }, error.excType);
      return 'challenge';
    }
    return undefined;
  }

  /** A success ends a throttle or challenge state; use is recorded at most once a minute. */
  afterCall(entry: UsedEntry, outcome: SessionState | undefined, now = this.deps.now()): void {
    const record = entry.record;
    const changed = outcome === 'active' && record.state !== 'active';
    const due = now - record.lastUsedAt >= TOUCH_EVERY_MS;
    if (!changed && !due) return;
    entry.record = { ...record, state: changed ? 'active' : record.state, lastUsedAt: due ? now : record.lastUsedAt };
    this.deps.uses.queue(entry, changed);
  }
}
