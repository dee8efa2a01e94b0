// Names the events use instead of secrets. A session id is a credential: events, webhook bodies
// and logs name a session by its ref, a one-way digest of the id that cannot be used to act.
import { createHash } from 'node:crypto';

export function sessionRef(sessionId: string): string {
  return 's_' + createHash('sha256').update('socialgate session ref\0' + sessionId).digest('base64url').slice(0, 20);
}

/** The per-session event log (the retained log SSE resumes from); events with no session share one. */
export function logOf(ref: string | undefined): string {
  return 'events:' + (ref ?? '-');
}

/** A stable event id from the platform's own ids: the same happening always gets the same id. */
export function eventId(type: string, ...parts: readonly (string | number)[]): string {
  return `evt_${type}_` + createHash('sha256').update([type, ...parts].join('\0')).digest('base64url').slice(0, 22);
}
