// Resolver registry: steps that turn what a client knows (a username) into what the upstream
// takes (a pk), through a cache so a repeated lookup costs no upstream call.
import { invalidParams } from './service-errors.js';
import type { InputBag, ResolveContext, ResolveSpec, Resolver } from './types.js';

const NUMERIC = /^\d+$/;

/**
 * Accepts a numeric id, a username passed in the id field by legacy clients, or a username;
 * writes the pk. The route's exactly_one constraint has already rejected neither-or-both.
 */
const usernameToPk: Resolver = {
  uses: ['user_info_by_username_v1'],
  resolve(input: InputBag, spec: ResolveSpec, ctx: ResolveContext) {
    const given = spec.from.map((name) => [name, input[name]] as const).find(([, value]) => typeof value === 'string' && value !== '');
    for (const name of spec.from) if (name !== spec.into) delete input[name];
    if (!given) return;
    const [name, value] = given as readonly [string, string];
    const text = value.trim();
    if (name === spec.into && NUMERIC.test(text)) {
      input[spec.into] = text; // a pk already: no lookup, no promise
      return;
    }
    return lookupPk(usernameIn(name, text).toLowerCase(), ctx).then((pk) => {
      input[spec.into] = pk;
    });
  },
};

/**
 * For routes with a call by username beside the call by pk (GET /user, GET /user/stream): a
 * username a legacy client put in the id field moves to `into`, so the by-username call runs and
 * the request still costs one upstream call. `from` is [id field, username field].
 */
const usernameFromId: Resolver = {
  uses: [],
  resolve(input: InputBag, spec: ResolveSpec) {
    for (const name of spec.from) {
      const value = input[name];
      if (typeof value !== 'string') continue;
      const text = value.trim();
      if (name !== spec.into && NUMERIC.test(text)) continue;
      const username = usernameIn(name, text);
      if (name !== spec.into) delete input[name];
      input[spec.into] = username;
    }
  },
};

/** The username a parameter holds, a leading `@` dropped; nothing left is a 422 naming the parameter. */
function usernameIn(param: string, text: string): string {
  const username = text.replace(/^@/, '');
  if (!username) throw invalidParams([{ param, problem: 'must be a user pk or a username' }]);
  return username;
}

async function lookupPk(username: string, ctx: ResolveContext): Promise<string> {
  const key = `${ctx.scope}:username:${username}`;
  const cached = ctx.cache.get(key);
  if (typeof cached === 'string') return cached;
  const user = (await ctx.call('user_info_by_username_v1', { username })) as { pk?: unknown };
  const pk = String(user?.pk ?? '');
  if (pk) ctx.cache.set(key, pk);
  return pk;
}

export const resolvers: Readonly<Record<string, Resolver>> = Object.freeze({ username_to_pk: usernameToPk, username_from_id: usernameFromId });
