// Which sessions a new webhook endpoint may be filtered on: only sessions its creator owns, so no
// caller receives another account's events. A request with a session owns that account's sessions;
// a key limited to accounts owns theirs; the operator scope without a session owns every session.
// An empty filter (every session's events) is the operator's alone: anyone else gets their own
// session's, or must name sessions.
import { checkAccount, isOperator } from '../../engine/owner.js';
import { invalidParams } from '../../engine/service-errors.js';
import type { PluginInput, Services } from '../../engine/types.js';
import { sessionRef } from '../../adapters/events/ids.js';

const REF = /^[A-Za-z0-9_-]{22}$/;
/** A ref is found by walking the store, as the console does, no further than this. */
const WALK_LIMIT = 2000;

/** The refs the endpoint filters on, each checked against the caller. */
export async function ownedFilter(given: readonly string[], input: PluginInput): Promise<string[]> {
  const { caller, session, services } = input;
  const everyone = isOperator(caller) && !caller.account;
  if (given.length === 0) {
    if (everyone) return [];
    if (session) return [sessionRef(session.id)];
    throw invalidParams([{ param: 'sessions', problem: "name the sessions whose events to send: only the operator scope may receive every session's events" }]);
  }
  return Promise.all(
    given.map(async (one) => {
      const ref = REF.test(one) ? one : sessionRef(one);
      if (everyone) return ref;
      const account = await accountOf(one, ref, services);
      const mine = account && (caller.account ? account.pk === caller.account : !!caller.key?.accounts);
      if (!mine) throw invalidParams([{ param: 'sessions', problem: `"${ref}" is not a session of yours` }]);
      checkAccount(caller.key, account);
      return ref;
    }),
  );
}

/** The account of a session named by its id (a lookup) or its ref (a bounded walk of the store). */
async function accountOf(given: string, ref: string, services: Services): Promise<{ pk: string; username: string } | undefined> {
  if (!REF.test(given)) return (await services.sessions.find(given))?.account;
  let read = 0;
  for await (const record of services.store.list()) {
    if (sessionRef(record.id) === ref) return record.account;
    if (++read === WALK_LIMIT) break;
  }
  return undefined;
}
