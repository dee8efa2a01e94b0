// The Koa application: request id and timing, the one error writer, the route table compiled from
// the manifest, and a JSON 404 for everything else. Adapters and plugins are injected.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import Router from '@koa/router';
import Koa from 'koa';
import { LRUCache } from 'lru-cache';
import { mapError } from './errors.js';
import { serviceError, type ServiceErrorTable } from './service-errors.js';
import { loadManifest, defaultManifestDir } from './manifest/load.js';
import type { SettingBounds } from './manifest/bounds.js';
import { createMetrics, type Metrics } from './metrics.js';
import { buildOpenApi } from './openapi.js';
import { downConvert } from './openapi-30.js';
import { admission, inputCheck, routeHandler, routeRunner, type RouteSteps } from './pipeline/handler.js';
import { backgroundRoutes } from './pipeline/runner.js';
import { valuesReader } from './pipeline/params.js';
import { MCP_PATH, mcpFor } from './mcp/index.js';
import type { BodyLimits } from './pipeline/body.js';
import { resolvers } from './resolvers.js';
import { Sessions } from './sessions.js';
import { shapes } from './shapes.js';
import { compileTyper, type Typer } from './typing.js';
import type {
  AppInfo,
  Background,
  Config,
  JsonText,
  KeyGrant,
  KeyStore,
  Logger,
  Manifest,
  Plugin,
  Resolver,
  KeyProof,
  RouteGuard,
  RouteSpec,
  Services,
  SessionLease,
  SessionSource,
  SessionStore,
  StreamResult,
  ToolAudit,
  UpstreamAdapter,
  WorkLayer,
  WorkStore,
} from './types.js';
import { compileValidators } from './validate.js';
import { rowFor } from './errors.js';
import { docsAssets, servedDocument } from './docs.js';
import { authenticate } from './auth.js';
import { KeyRing, memoryKeyStore, WrongKeys } from './keys.js';
import { RecentMetrics } from './recent.js';
import { SessionUsage } from './usage.js';
import { stackWithoutMessage } from './log.js';
import { AuditRing, SharedAudit } from './mcp/audit.js';

/** MCP tool calls an instance keeps for GET /console/audit (each is also in the log). */
const AUDIT_SIZE = 1000;

/** The MCP audit: shared through the work store when there is one, else this instance's ring. */
const auditOf = (store: WorkStore | undefined, log: Logger) => {
  const ring = new AuditRing(AUDIT_SIZE, log);
  return store ? new SharedAudit(store, ring, AUDIT_SIZE, log) : ring;
};

export { stackWithoutMessage };

export interface AppOptions {
  readonly config: Config;
  readonly upstream: UpstreamAdapter;
  readonly store: SessionStore;
  readonly plugins: Readonly<Record<string, Plugin>>;
  readonly log: Logger;
  /** Where MCP tool calls are audited; default a ring of this instance's last calls. */
  readonly audit?: ToolAudit;
  readonly zip: (paths: readonly string[], filename: string) => StreamResult;
  /** Content type of a downloaded file, by its name (injected: one table, the transfer adapter's). */
  readonly contentType: (path: string) => string;
  /** Resolvers beyond the engine's own (e.g. the download URL guard), by the name the manifest uses. */
  readonly resolvers?: Readonly<Record<string, Resolver>>;
  /** Bounds that settings decide (a floor, say): documented and enforced as configured. */
  readonly bounds?: SettingBounds;
  readonly manifestDir?: string;
  readonly build?: Readonly<Record<string, string>>;
  readonly deps?: Readonly<Record<string, string>>;
  readonly limits?: Partial<BodyLimits>;
  /** Opens the background layer (queue, store, events); called once with the app's logger. */
  readonly work?: (log: Logger) => WorkLayer & { close(): Promise<void> };
  /** One call at a time per session across instances (shared Redis or PostgreSQL stores). */
  readonly lease?: SessionLease;
  /** Background modules (jobs, events): each defines its work kinds before the queue starts. */
  /** The features' route guards (policy, idempotency), outermost first (engine/types/guards.ts). */
  readonly guards?: readonly RouteGuard[];
  readonly background?: readonly Background[];
  /** The features' session sources (X-Pool), tried when a request names no session by id. */
  readonly sessionSources?: readonly SessionSource[];
  /** The features' static answers by exact path (the console's built assets). */
  readonly assets?: () => ReadonlyMap<string, Koa.Middleware>;
  /** The features' proofs of the deployment's key for requests that send none (the console's cookie). */
  readonly keyProofs?: readonly KeyProof[];
  /** The features' error rows, beside the engine's (engine/service-errors.ts): the documents list them. */
  readonly errors?: ServiceErrorTable;
  /** Where named API keys are kept (beside the sessions); without it, in this process's memory. */
  readonly keys?: KeyStore;
  /** Whether the key store held keys at boot: the document then describes the key. */
  readonly keysAtBoot?: boolean;
}

export interface App {
  readonly koa: Koa;
  readonly router: RouteTable;
  readonly manifest: Manifest;
  readonly openapi: Readonly<Record<string, unknown>>;
  readonly services: Services;
  readonly metrics: Metrics;
  callback(): ReturnType<Koa['callback']>;
  close(): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const allResolvers = { ...resolvers, ...(options.resolvers ?? {}) };
  const manifest = forUpstream(
    loadManifest(options.manifestDir ?? defaultManifestDir(), {
      plugins: options.plugins,
      registries: { resolvers: allResolvers },
      bounds: options.bounds,
      errors: options.errors,
    }),
    options.upstream.name,
  );
  const metrics = createMetrics();
  sweepGauges(metrics, options.store);
  const openapi = Object.freeze(buildOpenApi(manifest, { apiKeyAuth: !!options.config.apiKey || !!options.keysAtBoot }));
  const keys = { ring: new KeyRing(options.keys ?? memoryKeyStore(), options.config.apiKey, options.config.sessionCacheTtlMs), wrong: new WrongKeys() };
  const sessions = new Sessions({
    upstream: options.upstream,
    store: options.store,
    metrics,
    log: options.log,
    cacheSize: options.config.cacheSize,
    recordTtlMs: options.config.sessionCacheTtlMs,
    throttleBackoffSeconds: options.config.throttleBackoffSeconds,
    throttled: (error) => {
      const row = rowFor(error, manifest.errors);
      // a block of one action class is no throttle of the session: the class alone freezes (its route's guard)
      return row?.status === 429 && row.session !== 'freeze' ? (row.retryAfter ?? options.config.throttleBackoffSeconds) : undefined;
    },
    challenged: (error) => rowFor(error, manifest.errors)?.session === 'challenge',
    lease: options.lease,
  });
  const openapiText = servedDocument(openapi);
  let openapi30: JsonText | undefined; // made on first request: most deployments are never asked for it
  const recent = new RecentMetrics(metrics, manifest);
  const app: AppInfo = {
    recent: () => recent.summary(),
    openapi: (version) => (version === '3.0' ? (openapi30 ??= servedDocument(downConvert(openapi))) : openapiText),
    metricsText: () => metrics.registry.metrics(),
    metricsContentType: metrics.registry.contentType,
    gauge: metrics.gauge,
    counter: metrics.counter,
    histogram: metrics.histogram,
    build: options.build ?? {},
    deps: options.deps ?? {},
  };
  // Filled by buildRouter: each route's steps, which MCP tools and background jobs run too.
  const steps = new Map<RouteSpec, RouteSteps>();
  const work = options.work?.(options.log);
  const routes = backgroundRoutes(manifest, (route) => steps.get(route)!);
  const services: Services = {
    upstream: options.upstream,
    store: options.store,
    sessions,
    config: options.config,
    log: options.log,
    app,
    routes,
    work,
    usage: new SessionUsage(),
    keys,
    audit: options.audit ?? auditOf(work?.store, options.log),
  };
  const router = buildRouter(manifest, services, { ...options, resolvers: allResolvers }, steps);
  if (work) startBackground(work, services, options.background ?? []);
  const koa = new Koa({ proxy: options.config.trustProxy });
  koa.on('error', (error: NodeJS.ErrnoException) => {
    // A client that leaves mid-stream (a closed console tab, a cancelled download) is no fault.
    if (!HANG_UPS.has(error.code ?? '')) options.log.error('response failed', { error: stackWithoutMessage(error) });
  });
  // One Koa middleware: request context around the (key check and) route table, with the 404 as
  // the table's `next`. Each further app middleware would cost every request a hop of Koa's chain.
  const routed = router.dispatch();
  const guarded = authenticate(
    {
      ring: keys.ring,
      wrong: keys.wrong,
      manifest,
      legacyKey: options.config.apiKey,
      metricsOpen: options.config.metricsOpen,
      openPaths: router.assetPaths,
      proofs: options.keyProofs,
    },
    routed,
  );
  koa.use(requestContext(manifest, metrics, options.log, (ctx) => guarded(ctx, noSuchRoute)));
  return {
    koa,
    router,
    manifest,
    openapi,
    services,
    metrics,
    callback: () => koa.callback(),
    close: async () => {
      recent.close();
      await router.close();
      await work?.close();
      await sessions.close();
      await options.upstream.close();
      await options.store.close();
      await options.lease?.close();
      await options.keys?.close();
      for (const guard of options.guards ?? []) await guard.close?.();
    },
  };
}

/** Leaves out the routes of another upstream (manifest `upstream_only`): they are neither routed nor documented. */
export function forUpstream(manifest: Manifest, upstream: string): Manifest {
  const routes = manifest.routes.filter((route) => !route.upstreamOnly || route.upstreamOnly === upstream);
  return routes.length === manifest.routes.length ? manifest : Object.freeze({ ...manifest, routes: Object.freeze(routes) });
}

/** Each module defines its kinds, then the queue starts: work a previous run left is picked up. */
function startBackground(work: WorkLayer, services: Services, modules: readonly Background[]): void {
  for (const install of modules) install(services);
  work.queue.start().catch((error) => services.log.error('background work did not start', { error: stackWithoutMessage(error) }));
}

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

function buildRouter(manifest: Manifest, services: Services, options: AppOptions, steps: Map<RouteSpec, RouteSteps>): RouteTable {
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
      resolvers: options.resolvers ?? resolvers,
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

const noSuchRoute = (): never => {
  throw serviceError('NoSuchRoute', 'No such route');
};

const HANG_UPS = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

/**
 * The HTTP server's own refusals, answered with the service's error body: a request line or headers
 * over the server's limit (a query string of a megabyte) is 431, and the rest of what the client
 * sends is read and dropped before the connection closes, so the client reads the answer instead of
 * a reset. Anything else malformed is Node's plain 400.
 */
export function guardServer(server: Server, app: App): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code !== 'HPE_HEADER_OVERFLOW' || !socket.writable) return void socket.destroy();
    const mapped = mapError(
      serviceError('HeaderTooLarge', "The request line and headers are over the server's limit (16 KB): a query string that long cannot be served"),
      app.manifest.errors,
    );
    const body = JSON.stringify(mapped.body);
    socket.on('data', () => undefined); // drained, not left unread: closing over unread data would reset the connection
    socket.end(
      `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: ` +
        `${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 5000).unref();
    app.services.log.info('request refused: headers too large', { status: 431 });
  });
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Request id, timing, access log, metrics and the one place errors become bodies. */
function requestContext(manifest: Manifest, metrics: Metrics, log: Logger, inner: (ctx: Koa.Context) => unknown): Koa.Middleware {
  const prefix = randomBytes(6).toString('hex');
  let counter = 0;
  return async (ctx) => {
    const started = performance.now();
    // A proxy's id is kept so logs line up across hops; otherwise a per-process prefix and counter
    // are unique, cheaper than a UUID per request, and reveal nothing.
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : `${prefix}-${(++counter).toString(36)}`;
    ctx.state.requestId = requestId;
    ctx.set('X-Request-ID', requestId);
    try {
      await inner(ctx);
    } catch (error) {
      if (hungUp(ctx)) hangUp(ctx, requestId, log);
      else writeError(ctx, error, manifest, requestId, log);
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = (ctx.state.route as string | undefined) ?? 'unmatched';
      metrics.observeRequest(route, ctx.method, ctx.status, seconds);
      if (ctx.status >= 500)
        log.warn('request failed', { request_id: requestId, ...keyField(ctx), method: ctx.method, route, status: ctx.status, ms: Math.round(seconds * 1000) });
    }
  };
}

/** The name of the request's API key, on every log line of the request (never the key). */
const keyField = (ctx: Koa.Context): { key?: string } => (ctx.state.key ? { key: (ctx.state.key as KeyGrant).name } : {});

/** The client closed the connection before its body was all sent: whatever failed then, it was not the service. */
function hungUp(ctx: Koa.Context): boolean {
  return !ctx.req.complete && (ctx.req.destroyed || ctx.req.socket.destroyed);
}

/** One info line naming it; the answer (a 400 nobody reads) is not an error of the service's. */
function hangUp(ctx: Koa.Context, requestId: string, log: Logger): void {
  log.info('client hung up mid-body', { request_id: requestId, method: ctx.method, route: (ctx.state.route as string | undefined) ?? ctx.path });
  ctx.status = 400;
  ctx.body = '';
}

function writeError(ctx: Koa.Context, error: unknown, manifest: Manifest, requestId: string, log: Logger): void {
  const mapped = mapError(error, manifest.errors);
  if (mapped.status === 500) log.error('unhandled error', { request_id: requestId, ...keyField(ctx), error: stackWithoutMessage(error) });
  ctx.status = mapped.status;
  if (mapped.retryAfter !== undefined) ctx.set('Retry-After', String(mapped.retryAfter));
  if (mapped.headers) ctx.set(mapped.headers);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ ...mapped.body, request_id: requestId });
}

/** The session store's expiry sweeps, by outcome, where the store sweeps at all. */
function sweepGauges(metrics: Metrics, store: SessionStore): void {
  const stats = store.sweepStats?.bind(store);
  if (!stats) return;
  metrics.gauge('socialgate_session_sweeps', 'Session expiry sweeps since start, by outcome', ['outcome'], async () => {
    const { runs, failures } = stats();
    return [
      { labels: { outcome: 'ok' }, value: runs - failures },
      { labels: { outcome: 'failed' }, value: failures },
    ];
  });
  metrics.gauge('socialgate_session_sweep_removed', 'Expired sessions removed by sweeps since start', [], async () => [{ labels: {}, value: stats().removed }]);
}
