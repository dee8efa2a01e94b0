// The route table: one @koa/router per path, compiled at boot from the manifest, with each route's
// steps (admission, input check, run) kept for MCP tools and background runs, the documents' and the
// features' assets by exact path, and MCP's endpoint.
import Router from '@koa/router';
import type Koa from 'koa';
import { LRUCache } from 'lru-cache';
import { serviceError } from './service-errors.js';
import { admission, inputCheck, routeHandler, routeRunner, type RouteSteps } from './pipeline/handler.js';
import { valuesReader } from './pipeline/params.js';
import type { BodyLimits } from './pipeline/body.js';
import { MCP_PATH, mcpFor } from './mcp/index.js';
import { shapes } from './shapes.js';
import { compileTyper, type Typer } from './typing.js';
import { compileValidators } from './validate.js';
import { docsAssets } from './docs.js';
import type { Config, Manifest, Plugin, Resolver, RouteGuard, RouteSpec, Services, BoundSessionSource, StreamResult, UpstreamAdapter } from './types.js';

/**
 * One @koa/router per path; its routes are matched at boot. Every path is static, so for each path
 * and method the router's own match decides, once, which registered middleware answer, and a
 * request costs one lookup of its path and one of its method. (Dispatching through the router's
 * middleware per request would test each layer's regexp, capture params and compose the chain on
 * every call: for an authenticated read that was over a tenth of the engine's time.)
 */
export interface RouteTable {
  readonly routers: ReadonlyMap<string, Router>;
  /** The features' asset paths, answered without a key. */
  readonly assetPaths: readonly string[];
  dispatch(): Koa.Middleware;
  /** Every registered (method, path), for the drift tests. */
  entries(): { method: string; path: string }[];
  /** Ends what the table's endpoints keep open (MCP's 2025 sessions and their subscriptions). */
  close(): Promise<void>;
}

/** What the table's routes are built with beside the manifest and services (AppOptions' part of it). */
export interface TableOptions {
  readonly config: Config;
  readonly plugins: Readonly<Record<string, Plugin>>;
  /** The parts each plugin's module made for this app (engine/module-start.ts), by plugin name. */
  readonly pluginParts?: ReadonlyMap<string, unknown>;
  readonly resolvers: Readonly<Record<string, Resolver>>;
  readonly limits?: Partial<BodyLimits>;
  readonly zip: (paths: readonly string[], filename: string) => StreamResult;
  readonly contentType: (path: string) => string;
  readonly guards?: readonly RouteGuard[];
  readonly sessionSources?: readonly BoundSessionSource[];
  readonly assets?: () => ReadonlyMap<string, Koa.Middleware>;
}

/** Fills `steps` with each route's steps (MCP tools and background jobs run them too). */
export function buildRouter(manifest: Manifest, services: Services, options: TableOptions, steps: Map<RouteSpec, RouteSteps>): RouteTable {
  const validators = compileValidators(manifest);
  const resolverCache = new LRUCache<string, NonNullable<unknown>>({ max: 10_000, ttl: 10 * 60_000 });
  const limits: BodyLimits = {
    fileBytes: options.limits?.fileBytes ?? options.config.uploadMaxMb * 1024 * 1024,
    formBytes: options.limits?.formBytes ?? 2 * 1024 * 1024,
    fileCap: options.limits?.fileCap,
  };
  const routers = new Map<string, Router>();
  for (const route of manifest.routes) {
    const deps = {
      services,
      validator: validators.get(route)!,
      shape: shapes[route.result.shape],
      plugin: route.plugin ? options.plugins[route.plugin] : undefined,
      parts: route.plugin ? options.pluginParts?.get(route.plugin) : undefined,
      resolvers: options.resolvers,
      resolverCache,
      limits,
      zip: options.zip,
      contentType: options.contentType,
      typer: typerFor(route, manifest, services.upstream),
      guards: options.guards,
      sessionSources: options.sessionSources,
    };
    const run = routeRunner(route, deps);
    const check = inputCheck(route, deps.validator, () => services.upstream.library.version);
    steps.set(route, { run, admit: admission(route, deps.validator), check, readValues: valuesReader(route) });
    const handler = routeHandler(route, deps, run);
    const router = routers.get(route.path) ?? routers.set(route.path, new Router()).get(route.path)!;
    router.register(route.path, [route.method], [handler], { name: route.id });
  }
  const chains = new Map<string, Koa.Middleware>([...routers].map(([path, router]) => [path, chain(router, path)]));
  for (const [path, serve] of docsAssets()) chains.set(path, serve);
  const assets = options.assets?.() ?? new Map<string, Koa.Middleware>();
  for (const [path, serve] of assets) chains.set(path, serve);
  const mcp = mcpFor(manifest, (route) => steps.get(route)!, services);
  if (mcp) chains.set(MCP_PATH, mcp.middleware);
  return {
    close: async () => mcp?.close(),
    routers,
    assetPaths: [...assets.keys()],
    dispatch: () => (ctx, next) => (chains.get(ctx.path) ?? next)(ctx, next),
    entries: () =>
      [...routers.values()].flatMap((r) =>
        r.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) }))),
      ),
  };
}

/** Compiled once per route, only for an upstream whose results lose their types on the way. */
function typerFor(route: RouteSpec, manifest: Manifest, upstream: UpstreamAdapter): Typer | undefined {
  if (!upstream.resultsNeedTyping || route.result.body !== 'json') return undefined;
  return compileTyper(route.result.schema, manifest.schemas);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'] as const;

/** The path's methods, each with the middleware its router registered for it; anything else is a 405. */
function chain(router: Router, path: string): Koa.Middleware {
  const handlers = new Map<string, Koa.Middleware>();
  for (const method of METHODS) {
    const matched = router.match(path, method);
    if (matched.route) handlers.set(method, runInOrder(matched.pathAndMethod.flatMap((layer) => layer.stack as Koa.Middleware[])));
  }
  const allow = [...handlers.keys()].join(', ');
  return (ctx, next) => {
    const handle = handlers.get(ctx.method);
    if (handle) return handle(ctx, next);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', allow);
      ctx.status = 204;
      return;
    }
    throw notAllowed(allow);
  };
}

/** A fixed middleware list run in order (what koa-compose would build per request, built once). */
function runInOrder(stack: readonly Koa.Middleware[]): Koa.Middleware {
  if (stack.length === 1) return stack[0];
  return stack.reduceRight<Koa.Middleware>(
    (rest, middleware) => (ctx, next) => middleware(ctx, () => rest(ctx, next)),
    (_ctx, next) => next(),
  );
}

// A 405 owes the client the list of methods the path has.
const notAllowed = (allow: string) => serviceError('MethodNotAllowed', `Method not allowed on this path (allowed: ${allow})`, { headers: { Allow: allow } });

export const noSuchRoute = (): never => {
  throw serviceError('NoSuchRoute', 'No such route');
};
