// What the console's session list shows of the policy: per class, the calls counted today against
// the day's limit, and the activity window. One read of the counters per 400 keys, whatever the
// number of sessions listed.
import { sessionRef } from '../../engine/session-record.js';
import { ACTION_CLASSES, type SessionRecord } from '../../engine/types.js';
import { counterKey } from './entry.js';
import type { Policy } from './policy.js';

const KEYS_PER_READ = 400;

/** The console's budgets panel of one session. */
export type ConsoleBudgets = {
  /** "HH:MM-HH:MM" in the session's timezone, or null when it has none. */
  readonly window: string | null;
  /** Per action class with a limit today: "used/limit" in the current UTC day. */
  readonly today: Readonly<Record<string, string>>;
};

export async function budgetSummaries(policy: Policy, records: readonly SessionRecord[]): Promise<ReadonlyMap<string, ConsoleBudgets>> {
  const now = policy.now();
  const keys = records.flatMap((record) => ACTION_CLASSES.map((cls) => counterKey(sessionRef(record.id), cls, 'day', now)));
  const store = await policy.store();
  const totals: number[] = [];
  for (let at = 0; at < keys.length; at += KEYS_PER_READ) totals.push(...(await store.read(keys.slice(at, at + KEYS_PER_READ))));
  const summaries = new Map<string, ConsoleBudgets>();
  await Promise.all(
    records.map(async (record, r) => {
      const own = await policy.sessionPolicy(sessionRef(record.id));
      const today: Record<string, string> = {};
      ACTION_CLASSES.forEach((cls, c) => {
        const limit = policy.limitsFor(record, cls, own, 'interactive').day;
        if (limit !== undefined) today[cls] = `${totals[r * ACTION_CLASSES.length + c]}/${limit}`;
      });
      summaries.set(record.id, { window: own.window ? `${own.window.start}-${own.window.end}` : null, today });
    }),
  );
  return summaries;
}
