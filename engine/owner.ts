// Ownership in one place. A request with a session acts as that session's account: it sees what was
// made for the account (and, with a key lacking the operator scope, only by its own key). A request
// without a session sees what its key made, or everything with the operator scope. A service with
// no keys at all is open: only a session narrows what a request sees. Another owner's resource is
// answered as missing (404), never as forbidden: ids are not confirmed to outsiders.
import type { Caller, KeyGrant, KeyScope, Owner, RouteSpec } from './types.js';
import { serviceError } from './service-errors.js';

/** The legacy single key (SOCIALGATE_API_KEY) and the console's cookie: every scope. */
export const LEGACY_KEY_NAME = 'default';
export const legacyGrant = (): KeyGrant => ({ name: LEGACY_KEY_NAME, scopes: ['read', 'write', 'operator'] });

export const hasScope = (key: KeyGrant | undefined, scope: KeyScope): boolean => !key || key.scopes.includes(scope);

/** Whether the caller may see everything (the operator scope, or a service without keys). */
export const isOperator = (caller: Caller | undefined): boolean => hasScope(caller?.key, 'operator');

/** The owner a caller gives what it makes. */
export function ownerOf(caller: Caller | undefined): Owner {
  return { ...(caller?.account ? { account: caller.account } : {}), ...(caller?.key ? { key: caller.key.name } : {}) };
}

/** Whether the caller may see and change a resource of this owner (undefined: made before owners were kept). */
export function owns(caller: Caller | undefined, owner: Owner | undefined): boolean {
  const made = owner ?? {};
  const byKey = isOperator(caller) || made.key === caller?.key?.name;
  if (caller?.account !== undefined) return made.account === caller.account && byKey;
  return byKey;
}

/** Whether the caller may read through a pool: its key names the pool, or it owns the pool. */
export function entitledToPool(caller: Caller | undefined, name: string, owner: Owner | undefined): boolean {
  const listed = caller?.key?.pools;
  if (listed && !isOperator(caller)) return listed.includes(name);
  return owns(caller, owner);
}

/** Whether the key may act for this account (its pk or username). */
export function keyAllowsAccount(key: KeyGrant | undefined, account: { readonly pk: string; readonly username: string }): boolean {
  return !key?.accounts || key.accounts.includes(account.pk) || key.accounts.includes(account.username);
}

/** A route's scope and the session's account against the request's key: 403 naming what is missing. */
export function checkKey(route: RouteSpec, caller: Caller | undefined, account?: { readonly pk: string; readonly username: string }): void {
  const key = caller?.key;
  if (!key || route.scope === 'none') return;
  if (!key.scopes.includes(route.scope)) {
    throw serviceError(
      'ApiKeyScopeMissing',
      `${route.key} needs the "${route.scope}" scope; key "${key.name}" has ${key.scopes.map((s) => `"${s}"`).join(', ') || 'none'}`,
    );
  }
  if (account) checkAccount(key, account);
}

/** 403 when the key is limited to other accounts than this one. */
export function checkAccount(key: KeyGrant | undefined, account: { readonly pk: string; readonly username: string }): void {
  if (!keyAllowsAccount(key, account))
    throw serviceError('ApiKeyAccountNotAllowed', `Key "${key!.name}" is not allowed to act for account ${account.username || account.pk}`);
}
