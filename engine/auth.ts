// Which key a request carries, checked before its route: the open system routes and assets pass;
// when the service has keys (the legacy SOCIALGATE_API_KEY or named ones) every other request needs
// one, in X-API-Key or Authorization: Bearer, or a feature's proof of the deployment's key (the console's cookie). The grant rides on
// ctx.state.key to the route's steps, which check its scope and limits (engine/owner.ts). Wrong
// keys are counted per client address (WrongKeys): past the limit every try waits, unchecked.
import type Koa from 'koa';
import type { KeyRing, WrongKeys } from './keys.js';
import { serviceError } from './service-errors.js';
import type { KeyGrant, KeyProof, Manifest } from './types.js';

export interface AuthDeps {
  readonly ring: KeyRing;
  readonly wrong: WrongKeys;
  readonly manifest: Manifest;
  readonly legacyKey?: string;
  /** /metrics answers without a key (its pool gauge then names no pool). */
  readonly metricsOpen: boolean;
  /** Paths served without a key besides the open routes (the features' assets). */
  readonly openPaths?: Iterable<string>;
  /** Other proofs of a key for a request that sends none (the console's cookie). */
  readonly proofs?: readonly KeyProof[];
}

export function authenticate(deps: AuthDeps, routed: Koa.Middleware): Koa.Middleware {
  const open = new Set(deps.manifest.routes.filter((r) => r.scope === 'none').map((r) => r.path));
  if (deps.metricsOpen) open.add('/metrics');
  for (const path of deps.openPaths ?? []) open.add(path);
  const keyed = async (ctx: Koa.Context, next: Koa.Next, known: boolean | undefined): Promise<unknown> => {
    if (!(known ?? (await deps.ring.required()))) return routed(ctx, next);
    ctx.state.key = await grantOf(ctx, deps);
    return routed(ctx, next);
  };
  // No await while the key set is cached and holds no key: the request goes straight on.
  return (ctx, next) => {
    if (open.has(ctx.path) || ctx.path.startsWith('/docs/')) return routed(ctx, next);
    const known = deps.ring.requiredNow();
    return known === false ? routed(ctx, next) : keyed(ctx, next, known);
  };
}

async function grantOf(ctx: Koa.Context, deps: AuthDeps): Promise<KeyGrant> {
  const given = ctx.get('x-api-key') || ctx.get('authorization').replace(/^Bearer\s+/i, '');
  if (!given) {
    const grant = await proven(ctx, deps);
    if (grant) return grant;
    throw serviceError('ApiKeyRequired', 'API key required');
  }
  deps.wrong.check(ctx.ip);
  const grant = await deps.ring.verify(given);
  if (grant) return grant;
  deps.wrong.wrong(ctx.ip);
  throw serviceError('ApiKeyRequired', 'API key wrong or revoked');
}

/** A feature's proof of a key on a request that sent none (the console page's cookie): the first that holds. */
async function proven(ctx: Koa.Context, deps: AuthDeps): Promise<KeyGrant | undefined> {
  const request = { method: ctx.method, header: (name: string) => ctx.get(name), cookie: (name: string) => ctx.cookies.get(name) };
  for (const proof of deps.proofs ?? []) {
    const grant = await proof.grant(request, { legacyKey: deps.legacyKey, ring: deps.ring });
    if (grant) return grant;
  }
  return undefined;
}
