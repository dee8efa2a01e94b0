// A session's health for background work, from its record alone (the governor's view, never a call
// to the platform): jobs, watchers and pools read it here.
import type { SessionRecord } from '../../../engine/types.js';

export interface SessionHealth {
  readonly state: 'healthy' | 'cooling' | 'quarantined';
  /** Why it is not healthy: throttled, challenge, logged_out, revoked. */
  readonly reason?: string;
  /** Epoch ms a cooling session is healthy again. */
  readonly until?: number;
}

export function healthOf(record: SessionRecord | undefined, now: number): SessionHealth {
  if (!record) return { state: 'quarantined', reason: 'revoked' };
  if ((record.throttledUntil ?? 0) > now) return { state: 'cooling', reason: 'throttled', until: record.throttledUntil };
  if (record.state === 'challenge' || record.state === 'logged_out') return { state: 'quarantined', reason: record.state };
  return { state: 'healthy' };
}
