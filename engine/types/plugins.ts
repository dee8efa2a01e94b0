import type { RecentFigures } from '../recent.js';
import { ACTION_CLASSES, type ActionClass, type ErrorRow, type RouteSpec, type WriteClass } from './route.js';
import type { ToolAudit } from './audit.js';
import type {
  CallOptions,
  RealtimeHandlers,
  RealtimeSubscription,
  SessionRecord,
  SessionState,
  SessionStore,
  UpstreamAdapter,
  UpstreamClient,
} from './ports.js';
import type { InputBag, JsonText, UploadedFile } from './registries.js';
import type { JsonSchema, JsonValue } from './route.js';
import type { WorkLayer } from './work.js';
import type { Caller } from './caller.js';
import type { KeyRing, WrongKeys } from '../keys.js';

// -- Plugins ---------------------------------------------------------------------------------

/**
 * What the engine hands a plugin: the validated input, the session (if any), the services, and the
 * parts its module's start made for this app (bound to the route at boot).
 */
export interface PluginInput<P = unknown> {
  /** What the owning module's `start` answered for this app (engine/types/modules.ts); undefined for a module without one. */
  readonly parts: P;
  readonly route: RouteSpec;
  readonly input: InputBag;
  readonly files: readonly UploadedFile[];
  readonly session?: SessionRecord;
  /** Who asks: the request's API key and its session's account (engine/owner.ts decides what it owns). */
  readonly caller: Caller;
  /** The client's address (X-Forwarded-For's when SOCIALGATE_TRUST_PROXY is on); HTTP requests only. */
  readonly address?: string;
  /** The session's live client, when the route has a session. */
  readonly client?: SessionClient;
  readonly services: Services;
  readonly requestId: string;
  /** Aborted when the client disconnects before the response is written. */
  readonly signal: AbortSignal;
  /** A request header ('' when absent); HTTP requests only, for protocols that put input there (SSE's Last-Event-ID). */
  readonly header?: (name: string) => string;
  /** Wraps the session's client for this run (a job paging through the library's iterator). */
  readonly via?: ClientVia;
  /** Run the route's declared calls (manifest `calls`) on the session's client with this bag. */
  invoke(bag: InputBag): Promise<unknown>;
  /** A private temp folder for this request, removed with everything in it after the response. */
  workdir(): Promise<string>;
  /** Register cleanup to run after the response is written, whatever happens. */
  defer(cleanup: () => Promise<void> | void): void;
}

/** A session-bound client: serialised per session, governed, measured. */
export interface SessionClient {
  call(method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown>;
}

/** Wraps a session's client for one background run: the calls go through it, then (or instead) through the session's lane and governor. */
export type ClientVia = (client: SessionClient) => SessionClient;

export interface Plugin<P = unknown> {
  /** Upstream methods the plugin may call (for the audit). */
  readonly uses: readonly string[];
  /** The keywords it passes each of those methods, so the audit can check them against the installed library. */
  readonly keywords?: Readonly<Record<string, readonly string[]>>;
  handle(input: PluginInput<P>): Promise<unknown>;
}

/** Shared services, injected at boot; tests replace one at a time. */
export interface Services {
  readonly upstream: UpstreamAdapter;
  readonly store: SessionStore;
  readonly sessions: SessionService;
  readonly config: Readonly<Config>;
  readonly log: Logger;
  /** What the system routes report about this running service. */
  readonly app: AppInfo;
  /** Runs any route for background work (jobs, pool reads): input checked as a request's would be. */
  readonly routes: BackgroundRoutes;
  /** The background layer (queue, store, events); absent when the app was built without one. */
  readonly work?: WorkLayer;
  /** Requests and errors per session and route family, counted by this instance (the console's). */
  readonly usage: UsageCounter;
  /** The API keys (legacy and named) and the count of wrong ones per client address. */
  readonly keys: { readonly ring: KeyRing; readonly wrong: WrongKeys };
  /** MCP tool calls: written by /mcp, read by operators (GET /console/audit). */
  readonly audit: ToolAudit;
}

/**
 * The engine's per-route steps for callers that are not an HTTP request: the same coercion,
 * validation, resolvers, calls and shaping as the route's handler.
 */
export interface BackgroundRoutes {
  /** The route by key ("GET /user/followers"); undefined when there is none. */
  route(key: string): RouteSpec | undefined;
  /** Coerces raw values (strings, or lists of strings, as a query would hold) and validates them; throws the route's 422. */
  input(route: RouteSpec, raw: Readonly<Record<string, unknown>>): InputBag;
  /** Validates, resolves, calls and shapes for the session: exactly one request's upstream work, through its lane and governor. */
  run(route: RouteSpec, bag: InputBag, session: SessionRecord, signal: AbortSignal, extra?: BackgroundRunExtra): Promise<unknown>;
  /** The HTTP status (and Retry-After) the one error registry gives a failure. */
  statusOf(error: unknown): { readonly status: number; readonly excType: string; readonly retryAfter?: number; readonly session?: ErrorRow['session'] };
  /** The manifest's component schemas (item records), for background consumers that read item shapes. */
  readonly schemas: Readonly<Record<string, JsonSchema>>;
  readonly routes: readonly RouteSpec[];
}

/** What a background run may carry beyond its bag: a scheduled upload's files, headers its guards read (Idempotency-Key). */
export interface BackgroundRunExtra {
  readonly files?: readonly UploadedFile[];
  readonly header?: (name: string) => string;
  /** Wraps the session's client for this run (a job paging through the library's iterator). */
  readonly via?: ClientVia;
}

/**
 * Chooses a healthy member session of a named pool for one call; throws 404 for an unknown pool,
 * 429 or 503 with Retry-After when no member is healthy. Installed by the module that keeps pools.
 */
export interface PoolChooser {
  /** With a caller, a pool it is not entitled to answers 404 as an unknown one. */
  choose(pool: string, caller?: Caller): Promise<SessionRecord>;
}

/** A cheap local look at a session's budgets, for choosers that spread work over sessions (pools). */
export interface BudgetPeek {
  /**
   * Epoch ms until which the session's budget for the class is known to be spent (background work's,
   * or interactive calls'); undefined when it is not known to be.
   */
  spentUntil(record: SessionRecord, cls: ActionClass, background: boolean): number | undefined;
}

export interface UsageCounter {
  /** Bumped on every count. */
  readonly version: number;
  count(sessionId: string, family: string, failed: boolean): void;
  of(sessionId: string): Record<string, { requests: number; errors: number }>;
  forget(sessionId: string): void;
}

/** One row of a gauge read at scrape time. */
export interface GaugeRow {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The series background modules register (off the request path): the metrics registry's and the app's. */
export interface BackgroundMetrics {
  /** A gauge read at scrape time (pool members per state, jobs per state); `collect` answers its rows. */
  gauge(name: string, help: string, labels: readonly string[], collect: () => Promise<readonly GaugeRow[]>): void;
  /** A counter (events by type, deliveries by outcome); answers the function that counts. */
  counter(name: string, help: string, labels: readonly string[]): (labels: Readonly<Record<string, string>>, by?: number) => void;
  /** A latency histogram, in seconds. */
  histogram(
    name: string,
    help: string,
    labels: readonly string[],
    buckets: readonly number[],
  ): (labels: Readonly<Record<string, string>>, seconds: number) => void;
}

export interface AppInfo extends BackgroundMetrics {
  /** The OpenAPI document, serialised once (it is over a megabyte; re-serialising cost ~4 ms a request); 3.0 for older generators. */
  openapi(version?: '3.0' | '3.1'): JsonText;
  metricsText(): Promise<string>;
  readonly metricsContentType: string;
  readonly build: Readonly<Record<string, string>>;
  readonly deps: Readonly<Record<string, string>>;
  /** Request and upstream figures by route family over the last hour, from the metrics above. */
  recent(): RecentFigures;
}

/** Session lifecycle, used by the engine's session step and by the auth plugins. */
export interface SessionService {
  /** Look up the record for a client-held session id; undefined when unknown. */
  find(id: string): Promise<SessionRecord | undefined>;
  /** The record when it is cached and still trusted, without waiting; otherwise undefined (then call find). */
  peek(id: string): SessionRecord | undefined;
  /** The governed, serialised client for a session (opened from the record on a cache miss). */
  client(record: SessionRecord): SessionClient;
  /** A logged-out client for routes that need no session (login, TOTP codes). */
  anonymous(): SessionClient;
  /** Persist a new session for a freshly logged-in client and return its record. */
  create(
    client: UpstreamClient,
    init: Omit<SessionRecord, 'id' | 'createdAt' | 'lastUsedAt' | 'state' | 'settings'> & { state?: SessionState },
  ): Promise<SessionRecord>;
  /** Persist changes (settings, proxy, state...) and drop the cached client so the next call reopens it. */
  update(record: SessionRecord, patch: Partial<Omit<SessionRecord, 'id' | 'createdAt'>>, reason?: string): Promise<SessionRecord>;
  revoke(id: string): Promise<boolean>;
  /**
   * What the account's standing on the platform carries to a new session of the same account (a
   * settings import under a new id): a throttle or challenge, and the module fields marked carried
   * (a class the platform blocked). A new id never lifts what the platform imposed.
   */
  carried(record: SessionRecord): Partial<SessionRecord>;
  /** The session's realtime stream on its live client; undefined when the upstream has none. */
  realtime(record: SessionRecord, handlers: RealtimeHandlers): Promise<RealtimeSubscription | undefined>;
  /**
   * Called with a session's id whenever this instance creates, changes or revokes it, and with the
   * change when its state (active, challenge, throttled, logged out) changed; answers the unsubscribe.
   */
  subscribe(listener: (id: string, change?: SessionStateChange) => void): () => void;
}

/** A session's stored state changed, and why (the upstream exception, `revoked`, `call_succeeded`); never a secret. */
export interface SessionStateChange {
  readonly record: SessionRecord;
  readonly from: SessionState;
  readonly to: SessionState;
  readonly reason: string;
  /** Epoch ms, when the new state is throttled. */
  readonly throttledUntil?: number;
  /**
   * What the modules' record fields say of it (RecordField.changed, over each field's `unchanged`): the
   * event's data beside the state's (the policy's frozen class: action, frozen_until).
   */
  readonly detail: Readonly<Record<string, JsonValue>>;
  /** The moved fields' ids, in declaration order: what tells this change from another of the same state. */
  readonly detailId: readonly (string | number)[];
}

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Which tools /mcp lists: the curated core, all, three meta-tools (dynamic), or none (no /mcp). */
export const TOOL_SETS = ['core', 'all', 'dynamic', 'none'] as const;
export type ToolSet = (typeof TOOL_SETS)[number];

/** What the MCP confirmation setting names: a write class, or `delete` (every DELETE that writes). */
export const CONFIRM_CLASSES: readonly ConfirmClass[] = [...ACTION_CLASSES.filter((one): one is WriteClass => one !== 'read'), 'delete'];
export type ConfirmClass = WriteClass | 'delete';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Upstream adapter name: sandbox | aiograpi. */
  readonly upstream: string;
  /** Session store URL: sqlite://path, redis://..., postgres://..., memory:// */
  readonly store: string;
  readonly cacheSize: number;
  readonly dataDir: string;
  readonly seed: number;
  readonly apiKey?: string;
  /** /metrics answers without a key (then its pool gauge names no pool). */
  readonly metricsOpen: boolean;
  readonly logLevel: 'silent' | 'error' | 'warn' | 'info';
  /** How long a cached session record is trusted before the store is read again. */
  readonly sessionCacheTtlMs: number;
  /** Governor back-off when a throttle error carries no hint of its own. */
  readonly throttleBackoffSeconds: number;
  /** Largest multipart file accepted at all, in MB (per-kind limits are the upload plugins'). */
  readonly uploadMaxMb: number;
  /** The account-safety preset (off, safe, standard, fast). */
  readonly policy: string;
  /** Trust X-Forwarded-* from a reverse proxy. */
  readonly trustProxy: boolean;
  /** Tools of the MCP endpoint: core | all | dynamic | none (no /mcp). */
  readonly mcpTools: ToolSet;
  /** Write classes (and `delete`) whose MCP tool calls a human must confirm (elicitation). */
  readonly mcpConfirm: readonly ConfirmClass[];
  /** Host names /mcp answers to beyond the loopback names and `host`. */
  readonly mcpAllowedHosts: readonly string[];
  /** Adapter- and plugin-specific settings, read from SOCIALGATE_* variables and flags. */
  readonly extra: Readonly<Record<string, string>>;
}
