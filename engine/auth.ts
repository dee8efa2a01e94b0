// Which key a request carries, checked before its route: the open system routes and assets pass;
// when the service has keys (the legacy SOCIALGATE_API_KEY or named ones) every other request needs
// one, in X-API-Key or Authorization: Bearer, or the console's cookie. The grant rides on
// ctx.state.key to the route's steps, which check its scope and limits (engine/owner.ts). Wrong
// keys are counted per client address (WrongKeys): past the limit every try waits, unchecked.
import type Koa from 'koa';
import { CONSOLE_ASSET_PREFIX, CONSOLE_COOKIE, CONSOLE_HEADER, tokenKeyName, validToken } from './console.js';
import type { KeyRing, WrongKeys } from './keys.js';
import { legacyGrant } from './owner.js';
import { serviceError } from './service-errors.js';
import type { KeyGrant, Manifest } from './types.js';

export interface AuthDeps {
  readonly ring: KeyRing;
  readonly wrong: WrongKeys;
  readonly manifest: Manifest;
  readonly legacyKey?: string;
  /** /metrics answers without a key (its pool gauge then names no pool). */
  readonly metricsOpen: boolean;
}

export function authenticate(deps: AuthDeps, routed: Koa.Middleware): Koa.Middleware {
  const open = new Set(deps.manifest.routes.filter((r) => r.scope === 'none').map((r) => r.path));
  if (deps.metricsOpen) open.add('/metrics');
  return async (ctx, next) => {
    if (open.has(ctx.path) || ctx.path.startsWith('/docs/') || ctx.path.startsWith(CONSOLE_ASSET_PREFIX)) return routed(ctx, next);
    if (!(await deps.ring.required())) return routed(ctx, next);
    ctx.state.key = await grantOf(ctx, deps);
    return routed(ctx, next);
  };
}

async function grantOf(ctx: Koa.Context, deps: AuthDeps): Promise<KeyGrant> {
  const given = ctx.get('x-api-key') || ctx.get('authorization').replace(/^Bearer\s+/i, '');
  if (!given) {
    const grant = await fromConsole(ctx, deps);
    if (grant) return grant;
    throw serviceError('ApiKeyRequired', 'API key required');
  }
  deps.wrong.check(ctx.ip);
  const grant = await deps.ring.verify(given);
  if (grant) return grant;
  deps.wrong.wrong(ctx.ip);
  throw serviceError('ApiKeyRequired', 'API key wrong or revoked');
}

/**
 * The console page's own requests carry the key's cookie (set by POST /console/key): of the legacy
 * key, or of a named key with the operator scope (still held, still an operator's). A request that
 * changes something must also carry the console's header, which another site's form or link
 * cannot add: the cookie alone authorises reads only (the page's event stream cannot send headers).
 */
async function fromConsole(ctx: Koa.Context, deps: AuthDeps): Promise<KeyGrant | undefined> {
  const cookie = ctx.cookies.get(CONSOLE_COOKIE);
  if (!cookie || !(ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.get(CONSOLE_HEADER) === '1')) return undefined;
  const name = tokenKeyName(cookie);
  if (name === undefined) return deps.legacyKey && validToken(deps.legacyKey, cookie) ? legacyGrant() : undefined;
  const named = await deps.ring.named(name);
  return named && named.grant.scopes.includes('operator') && validToken(named.hash, cookie, Date.now(), name) ? named.grant : undefined;
}
