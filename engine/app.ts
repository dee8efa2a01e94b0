// The Koa application: request id and timing, the one error writer, the route table compiled from
// the manifest, and a JSON 404 for everything else. Adapters and plugins are injected.
import Koa from 'koa';
import type { ServiceErrorTable } from './service-errors.js';
import { loadManifest, defaultManifestDir } from './manifest/load.js';
import type { SettingBounds } from './manifest/bounds.js';
import { createMetrics, type Metrics } from './metrics.js';
import { buildOpenApi } from './openapi.js';
import { downConvert } from './openapi-30.js';
import type { RouteSteps } from './pipeline/handler.js';
import { backgroundRoutes } from './pipeline/runner.js';
import type { BodyLimits } from './pipeline/body.js';
import { resolvers } from './resolvers.js';
import { Sessions } from './sessions.js';
import { declaredRecordFields } from './modules.js';
import { RecordFields } from './record-fields.js';
import type {
  AppInfo,
  FeatureModule,
  Config,
  JsonText,
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
  SessionStore,
  StreamResult,
  ToolAudit,
  UpstreamAdapter,
  WorkLayer,
  WorkStore,
} from './types.js';
import { rowFor } from './errors.js';
import { servedDocument } from './docs.js';
import { servedCallback, type ServedCallback } from './koa-callback.js';
import { authenticate } from './auth.js';
import { KeyRing, memoryKeyStore, WrongKeys } from './keys.js';
import { RecentMetrics } from './recent.js';
import { SessionUsage } from './usage.js';
import { stackWithoutMessage } from './log.js';
import { AuditRing, SharedAudit } from './mcp/audit.js';
import { buildRouter, noSuchRoute, type RouteTable } from './route-table.js';
import { HANG_UPS, requestContext } from './request-context.js';
import { startModules } from './module-start.js';

/** MCP tool calls an instance keeps for GET /console/audit (each is also in the log). */
const AUDIT_SIZE = 1000;

/** The MCP audit: shared through the work store when there is one, else this instance's ring. */
const auditOf = (store: WorkStore | undefined, log: Logger) => {
  const ring = new AuditRing(AUDIT_SIZE, log);
  return store ? new SharedAudit(store, ring, AUDIT_SIZE, log) : ring;
};

export { stackWithoutMessage };
export { guardServer } from './request-context.js';
export type { RouteTable } from './route-table.js';

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
  /**
   * The feature modules, started once the services exist (engine/module-start.ts): their parts reach
   * their plugins, and their guards, session sources and session views are bound from them.
   */
  readonly modules?: readonly FeatureModule[];
  /** Route guards outside the modules' own, outermost first (tests observe or refuse calls with them). */
  readonly guards?: readonly RouteGuard[];
  /** The clock module state reads (tests move it); Date.now by default. */
  readonly clock?: () => number;
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
  /** The route guards every route was bound with, outermost first. */
  readonly guards: readonly RouteGuard[];
  /** What a feature module's start made for this app (tests and tools; routes get their module's bound at boot). */
  partsOf<Q>(module: FeatureModule<Q>): Q | undefined;
  /** The request listener to serve with (koa-callback.ts). */
  callback(): ServedCallback;
  close(): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const allResolvers = { ...resolvers, ...(options.resolvers ?? {}) };
  const manifest = appManifest(options, allResolvers);
  const metrics = createMetrics();
  sweepGauges(metrics, options.store);
  const openapi = Object.freeze(buildOpenApi(manifest, { apiKeyAuth: !!options.config.apiKey || !!options.keysAtBoot }));
  const info = appInfo(options, metrics, manifest, openapi);
  // Filled by buildRouter: each route's steps, which MCP tools and background jobs run too.
  const steps = new Map<RouteSpec, RouteSteps>();
  const work = options.work?.(options.log);
  const sessions = openSessions(options, manifest, metrics);
  const services = appServices(options, { sessions, work, app: info.app, routes: backgroundRoutes(manifest, (route) => steps.get(route)!) });
  const modules = startModules(options.modules ?? [], services, options.clock);
  const guards = [...(options.guards ?? []), ...modules.guards];
  const table = { ...options, resolvers: allResolvers, pluginParts: modules.pluginParts, guards, sessionSources: modules.sessionSources };
  const router = buildRouter(manifest, services, table, steps);
  if (work) startQueue(work, services);
  const { koa, callback } = serve(options, manifest, metrics, services, router);
  return {
    koa,
    router,
    manifest,
    openapi,
    services,
    metrics,
    guards,
    partsOf: modules.partsOf,
    callback,
    close: async () => {
      info.recent.close();
      await router.close();
      await work?.close();
      await modules.stop();
      await sessions.close();
      await options.upstream.close();
      await options.store.close();
      await options.lease?.close();
      await options.keys?.close();
      for (const guard of options.guards ?? []) await guard.close?.();
    },
  };
}

function appManifest(options: AppOptions, allResolvers: Readonly<Record<string, Resolver>>): Manifest {
  const loaded = loadManifest(options.manifestDir ?? defaultManifestDir(), {
    plugins: options.plugins,
    registries: { resolvers: allResolvers },
    bounds: options.bounds,
    errors: options.errors,
  });
  return forUpstream(loaded, options.upstream.name);
}

/** What the system routes report about the running service (the 3.0 document made on first request). */
function appInfo(options: AppOptions, metrics: Metrics, manifest: Manifest, openapi: Readonly<Record<string, unknown>>) {
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
  return { app, recent };
}

/** The services every route, module and background run shares. */
function appServices(options: AppOptions, made: Pick<Services, 'sessions' | 'work' | 'app' | 'routes'>): Services {
  return {
    ...made,
    upstream: options.upstream,
    store: options.store,
    config: options.config,
    log: options.log,
    usage: new SessionUsage(),
    keys: { ring: new KeyRing(options.keys ?? memoryKeyStore(), options.config.apiKey, options.config.sessionCacheTtlMs), wrong: new WrongKeys() },
    audit: options.audit ?? auditOf(made.work?.store, options.log),
  };
}

function openSessions(options: AppOptions, manifest: Manifest, metrics: Metrics): Sessions {
  return new Sessions({
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
    fields: new RecordFields(declaredRecordFields(options.modules ?? []), options.log),
  });
}

/**
 * One Koa middleware: request context around the key check and the route table, with the 404 as the
 * table's `next`. Each further app middleware would cost every request a hop of Koa's chain.
 */
function serve(options: AppOptions, manifest: Manifest, metrics: Metrics, services: Services, router: RouteTable): Pick<App, 'koa' | 'callback'> {
  const koa = new Koa({ proxy: options.config.trustProxy });
  koa.on('error', (error: NodeJS.ErrnoException) => {
    // A client that leaves mid-stream (a closed console tab, a cancelled download) is no fault.
    if (!HANG_UPS.has(error.code ?? '')) options.log.error('response failed', { error: stackWithoutMessage(error) });
  });
  const guarded = authenticate(
    {
      ring: services.keys.ring,
      wrong: services.keys.wrong,
      manifest,
      legacyKey: options.config.apiKey,
      metricsOpen: options.config.metricsOpen,
      openPaths: router.assetPaths,
      proofs: options.keyProofs,
    },
    router.dispatch(),
  );
  const middleware = requestContext(manifest, metrics, options.log, (ctx) => guarded(ctx, noSuchRoute));
  koa.use(middleware); // for whoever serves koa.callback() itself
  return { koa, callback: () => servedCallback(koa, middleware) };
}

/** Leaves out the routes of another upstream (manifest `upstream_only`): they are neither routed nor documented. */
export function forUpstream(manifest: Manifest, upstream: string): Manifest {
  const routes = manifest.routes.filter((route) => !route.upstreamOnly || route.upstreamOnly === upstream);
  return routes.length === manifest.routes.length ? manifest : Object.freeze({ ...manifest, routes: Object.freeze(routes) });
}

/** After the modules defined their kinds (their start): work a previous run left is picked up. */
function startQueue(work: WorkLayer, services: Services): void {
  work.queue.start().catch((error) => services.log.error('background work did not start', { error: stackWithoutMessage(error) }));
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
