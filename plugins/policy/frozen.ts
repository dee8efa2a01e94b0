// A session's frozen action classes as readers show them (GET /policy, the console, the CLI): a pure
// view of the session record, apart from the guard (freeze.ts) so that a reader loads nothing else.
// The record's `frozen` field is the policy's own: declared here (the engine keeps it, and hears of its
// moves, without naming it) and typed on SessionRecord by augmentation.
import type { ActionClass, RecordField, SessionRecord } from '../../engine/types.js';

/** One action class's freeze: until when, and how long it was (a repeat within a day freezes twice as long). */
export interface ClassFreeze {
  /** Epoch ms. */
  readonly until: number;
  readonly seconds: number;
}

declare module '../../engine/types/ports.js' {
  interface SessionRecord {
    /**
     * Action classes the platform blocked (FeedbackRequired), by class: refused until `until` while the
     * rest of the session goes on (./freeze.ts). An ended freeze stays, for the next one's back-off.
     */
    readonly frozen?: Readonly<Record<string, ClassFreeze>>;
  }
}

/** The policy's field of the session record; a class newly frozen (or frozen longer) is a state change carrying it. */
export const FROZEN_FIELD: RecordField = {
  name: 'frozen',
  describe: 'action classes the platform blocked, by class: until when and for how long',
  unchanged: { action: null, frozen_until: null },
  carried: true,
  changed(before, after) {
    for (const [action, freeze] of Object.entries(after.frozen ?? {})) {
      if (freeze.until !== before.frozen?.[action]?.until)
        return { data: { action, frozen_until: new Date(freeze.until).toISOString() }, id: [action, freeze.until] };
    }
    return undefined;
  },
};

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
