import type { RouteSpec } from './route.js';
import type { CallOptions, SessionRecord, SessionState, SessionStore, UpstreamAdapter, UpstreamClient } from './ports.js';
import type { InputBag, JsonText, UploadedFile } from './registries.js';

// ── Plugins ─────────────────────────────────────────────────────────────────────────────────

/** What the engine hands a plugin: the validated input, the session (if any) and the services. */
export interface PluginInput {
  readonly route: RouteSpec;
  readonly input: InputBag;
  readonly files: readonly UploadedFile[];
  readonly session?: SessionRecord;
  /** The session's live client, when the route has a session. */
  readonly client?: SessionClient;
  readonly services: Services;
  readonly requestId: string;
  /** Aborted when the client disconnects before the response is written. */
  readonly signal: AbortSignal;
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

export interface Plugin {
  /** Upstream methods the plugin may call (for the audit). */
  readonly uses: readonly string[];
  /** The keywords it passes each of those methods, so the audit can check them against the installed library. */
  readonly keywords?: Readonly<Record<string, readonly string[]>>;
  handle(input: PluginInput): Promise<unknown>;
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
}

export interface AppInfo {
  /** The OpenAPI document, serialised once (it is over a megabyte; re-serialising cost ~4 ms a request). */
  openapi(): JsonText;
  metricsText(): Promise<string>;
  readonly metricsContentType: string;
  readonly build: Readonly<Record<string, string>>;
  readonly deps: Readonly<Record<string, string>>;
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
  create(client: UpstreamClient, init: Omit<SessionRecord, 'id' | 'createdAt' | 'lastUsedAt' | 'state' | 'settings'> & { state?: SessionState }): Promise<SessionRecord>;
  /** Persist changes (settings, proxy, state...) and drop the cached client so the next call reopens it. */
  update(record: SessionRecord, patch: Partial<Omit<SessionRecord, 'id' | 'createdAt'>>): Promise<SessionRecord>;
  revoke(id: string): Promise<boolean>;
}

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

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
  readonly logLevel: 'silent' | 'error' | 'warn' | 'info';
  /** How long a cached session record is trusted before the store is read again. */
  readonly sessionCacheTtlMs: number;
  /** Governor back-off when a throttle error carries no hint of its own. */
  readonly throttleBackoffSeconds: number;
  /** Largest multipart file accepted at all, in MB (per-kind limits are the upload plugins'). */
  readonly uploadMaxMb: number;
  /** Trust X-Forwarded-* from a reverse proxy. */
  readonly trustProxy: boolean;
  /** Adapter- and plugin-specific settings, read from SOCIALGATE_* variables and flags. */
  readonly extra: Readonly<Record<string, string>>;
}
