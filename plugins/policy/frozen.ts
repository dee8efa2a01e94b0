// A session's frozen action classes as readers show them (GET /policy, the console, the CLI): a pure
// view of the session record, apart from the guard (freeze.ts) so that a reader loads nothing else.
import type { ActionClass, SessionRecord } from '../../engine/types.js';

/** One frozen class of a session. */
export interface FrozenClass {
  readonly action: ActionClass;
  /** Epoch ms when the class is allowed again. */
  readonly until: number;
  /** How long this freeze was, in seconds. */
  readonly seconds: number;
}

/** The session's classes frozen at `now` (those whose freeze has ended are left out), soonest thawed first. */
export function frozenClasses(session: SessionRecord, now = Date.now()): FrozenClass[] {
  return Object.entries(session.frozen ?? {})
    .filter(([, freeze]) => freeze.until > now)
    .map(([action, freeze]) => ({ action: action as ActionClass, until: freeze.until, seconds: freeze.seconds }))
    .sort((a, b) => a.until - b.until);
}
