// Names the events use. A session id is a credential: events, webhook bodies and logs name a
// session by its ref (engine/sessions.ts), which is the console's name for it too.
import { createHash } from 'node:crypto';

export { sessionRef } from '../../engine/session-record.js';

/** The per-session event log (the retained log SSE resumes from); events with no session share one. */
export function logOf(ref: string | undefined): string {
  return 'events:' + (ref ?? '-');
}

/** A stable event id from the platform's own ids: the same happening always gets the same id. */
export function eventId(type: string, ...parts: readonly (string | number)[]): string {
  return (
    `evt_${type}_` +
    createHash('sha256')
      .update([type, ...parts].join('\0'))
      .digest('base64url')
      .slice(0, 22)
  );
}
