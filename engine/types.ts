// The engine's contracts: the normalised route record that the manifest becomes, and the ports
// (upstream, session store, plugins, registries) that adapters and plugins implement.
// Everything downstream of the loader reads these types, never raw YAML.

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type ParamSource = 'query' | 'form' | 'file';
export type ParamType = 'string' | 'id' | 'integer' | 'number' | 'boolean' | 'json' | 'file' | 'url';
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonSchema = Record<string, unknown>;

/** One request parameter after normalisation. */
export interface ParamSpec {
  readonly name: string;
  /** Where the value is read: GET reads query; POST/PATCH read form; DELETE reads form, then query. */
  readonly in: ParamSource;
  readonly type: ParamType;
  readonly required: boolean;
  readonly repeated: boolean;
  readonly default?: JsonValue;
  readonly description?: string;
  readonly example?: JsonValue;
  /** JSON Schema of the decoded value (for `json` parameters, the content schema of one item). */
  readonly schema: JsonSchema;
  /** Upstream keyword this parameter becomes; null when the route only uses it to choose a call. */
  readonly upstream: string | null;
  /** Coercion tag from the coercion registry (the param's type). */
  readonly coerce: string;
  /** For file and url params: the accepted kind of content (image, video, image_or_video, audio, any). */
  readonly format?: string;
}

/** A condition on the input bag that decides whether a call runs. */
export type Condition = Readonly<Record<string, 'present' | 'absent' | JsonValue | readonly JsonValue[]>>;

/** One upstream call of a route. Calls run in order; each runs when its condition holds. */
export interface CallSpec {
  readonly method: string;
  readonly when?: Condition;
  /** upstream keyword → input-bag name (a parameter, or an earlier call's `as`); literals via `const`. */
  readonly args: Readonly<Record<string, ArgSource>>;
  /** Name under which the result is kept in the input bag for later calls and the shaper. */
  readonly as?: string;
}
export type ArgSource = { readonly from: string; readonly path?: readonly string[] } | { readonly const: JsonValue };

export interface ResolveSpec {
  /** Resolver tag from the resolver registry. */
  readonly by: string;
  /** Input names the resolver reads, in order of preference. */
  readonly from: readonly string[];
  /** Input name it writes. */
  readonly into: string;
}

export interface ConstraintSpec {
  readonly kind: 'exactly_one' | 'at_least_one' | 'at_most_one';
  readonly params: readonly string[];
}

export interface ResultSpec {
  /** Shaper tag from the shape registry. */
  readonly shape: string;
  /** Response schema (a $ref or inline JSON Schema) of the whole body. */
  readonly schema: JsonSchema;
  /** Shaper options (e.g. `fields` for compose, `keys` for tuple). */
  readonly options: Readonly<Record<string, JsonValue>>;
  /** Bag name the shaper reads; defaults to the last call that ran. */
  readonly from?: string;
  readonly description?: string;
}

export type SessionMode = 'required' | 'optional' | 'none';

/** The normalised, frozen record of one route: the single source for router, validators and OpenAPI. */
export interface RouteSpec {
  readonly key: string; // "GET /user/followers"
  readonly id: string; // operationId: getUserFollowers
  readonly method: HttpMethod;
  readonly path: string;
  readonly area: string;
  readonly tag: string;
  readonly file: string;
  readonly summary: string;
  readonly description?: string;
  readonly session: SessionMode;
  readonly plugin?: string;
  readonly params: readonly ParamSpec[];
  readonly constraints: readonly ConstraintSpec[];
  readonly resolve: readonly ResolveSpec[];
  /** JSON Schema fragments across parameters (if/then/else...), checked with the params. */
  readonly rules: readonly JsonSchema[];
  readonly calls: readonly CallSpec[];
  readonly result: ResultSpec;
  /** Every upstream method the route may reach: its calls, its resolvers' and its plugin's. */
  readonly upstreamMethods: readonly string[];
}

export interface Manifest {
  readonly format: number;
  readonly routes: readonly RouteSpec[];
  /** Named component schemas (records such as User, Media; request JSON such as Usertag). */
  readonly schemas: Readonly<Record<string, JsonSchema>>;
  readonly tags: readonly { readonly name: string; readonly description?: string }[];
  readonly errors: ErrorTable;
}

// ── Errors ──────────────────────────────────────────────────────────────────────────────────

export interface ErrorRow {
  readonly status: number;
  readonly hint?: string;
  /** Seconds for a Retry-After header (429 family). */
  readonly retryAfter?: number;
  /** Body detail override; otherwise the upstream message. */
  readonly detail?: string;
}
export interface ErrorTable {
  /** exception name → its direct bases, as the upstream defines them. */
  readonly hierarchy: Readonly<Record<string, readonly string[]>>;
  /** exception (or base) name → HTTP mapping. */
  readonly rows: Readonly<Record<string, ErrorRow>>;
  /** Message patterns that refine a mapping (e.g. the "doesn't appear to belong to an account" 401). */
  readonly messages: readonly { readonly contains: string; readonly row: ErrorRow; readonly excType?: string }[];
}

/** An error raised by an upstream, named by its exception class. Crosses process boundaries as data. */
export class UpstreamError extends Error {
  readonly excType: string;
  readonly bases: readonly string[];
  readonly lastJson?: JsonValue;
  readonly retryAfter?: number;
  constructor(excType: string, message: string, extra: { bases?: readonly string[]; lastJson?: JsonValue; retryAfter?: number } = {}) {
    super(message);
    this.name = 'UpstreamError';
    this.excType = excType;
    this.bases = extra.bases ?? [];
    this.lastJson = extra.lastJson;
    this.retryAfter = extra.retryAfter;
  }
}

// ── Upstream port ───────────────────────────────────────────────────────────────────────────

/** What a live upstream client is built from: everything but secrets the caller typed. */
export interface ClientOptions {
  /** The upstream's settings export (cookies, device, uuids...); empty for a fresh client. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly proxy?: string;
  readonly locale?: string;
  /** Timezone offset in seconds. */
  readonly timezone?: number;
}

/**
 * A live upstream client for one session. `call` runs upstream method NAME with keyword
 * arguments; results are JSON-shaped (tuples as arrays, records as objects, paths as strings).
 * Failures reject with UpstreamError. Implementations may cross a process boundary.
 */
export interface UpstreamClient {
  call(method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown>;
  /** The upstream settings export, to persist in the session record. */
  exportSettings(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
export interface CallOptions {
  /** Security code to hand the upstream's challenge handler for this one call only. */
  readonly challengeCode?: string;
  readonly signal?: AbortSignal;
}

export interface ReadyCheck {
  readonly ok: boolean;
  readonly detail?: string;
}

export interface UpstreamAdapter {
  readonly name: string;
  /** Library name and version reported by /build and /deps. */
  readonly library: { readonly name: string; readonly version: string };
  /** Builds a client from stored options; must not call the platform. */
  open(options: ClientOptions): Promise<UpstreamClient>;
  ready(): Promise<ReadyCheck>;
  close(): Promise<void>;
}

// ── Session store port ──────────────────────────────────────────────────────────────────────

export type SessionState = 'active' | 'challenge' | 'throttled' | 'logged_out';

export interface SessionRecord {
  readonly id: string;
  /** Platform account the session acts for (username and pk; no secrets). */
  readonly account: { readonly pk: string; readonly username: string };
  readonly settings: Readonly<Record<string, unknown>>;
  readonly proxy?: string;
  readonly locale?: string;
  readonly timezone?: number;
  readonly state: SessionState;
  /** Epoch ms until which the governor answers 429 without calling the upstream. */
  readonly throttledUntil?: number;
  readonly createdAt: number;
  readonly lastUsedAt: number;
}

export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined>;
  set(record: SessionRecord): Promise<void>;
  delete(id: string): Promise<boolean>;
  list(): AsyncIterable<SessionRecord>;
  ready(): Promise<ReadyCheck>;
  close(): Promise<void>;
}

// ── Registries ──────────────────────────────────────────────────────────────────────────────

/** A coercer turns the raw string(s) of one parameter into its typed value, or throws CoercionError. */
export type Coercer = (raw: readonly string[], param: ParamSpec) => unknown;

export class CoercionError extends Error {}

/** Input bag of one request: coerced parameters, uploaded files, and call results by `as`. */
export type InputBag = Record<string, unknown>;

export interface UploadedFile {
  readonly field: string;
  readonly path: string;
  readonly originalName: string;
  readonly mimeType: string;
  readonly size: number;
}

/** What a resolver may use: the session's upstream client and a shared cache. */
export interface ResolveContext {
  call(method: string, kwargs: Readonly<Record<string, unknown>>): Promise<unknown>;
  readonly cache: ResolverCache;
  /** Cache key scope (the session's account), so one account's view never answers another's. */
  readonly scope: string;
}
export interface ResolverCache {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}
export interface Resolver {
  /** Upstream methods the resolver may call (for the audit and the sandbox completeness test). */
  readonly uses: readonly string[];
  resolve(input: InputBag, spec: ResolveSpec, ctx: ResolveContext): Promise<void>;
}

/** A file the engine streams to the client and then deletes. */
export interface FileResult {
  readonly kind: 'file';
  readonly path: string;
  readonly filename: string;
  readonly contentType: string;
  /** Remove the file (and its private folder) once streamed. */
  readonly cleanup?: () => Promise<void>;
}
/** A stream the engine pipes to the client (e.g. a zip of several files). */
export interface StreamResult {
  readonly kind: 'stream';
  readonly stream: NodeJS.ReadableStream;
  readonly filename: string;
  readonly contentType: string;
  readonly length?: number;
  readonly cleanup?: () => Promise<void>;
}

/** A shaper turns the upstream result into the response body. Pure. */
export type Shaper = (value: unknown, spec: ResultSpec, bag: InputBag) => unknown;
export interface ShapeEntry {
  readonly shape: Shaper;
  /** Default response schema when the manifest gives none (documentation). */
  readonly schema: (spec: { readonly items?: JsonSchema; readonly schema?: JsonSchema }) => JsonSchema;
  /** HTTP content type; JSON unless the shape writes files. */
  readonly binary?: boolean;
}

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
  openapi(): Readonly<Record<string, unknown>>;
  metricsText(): Promise<string>;
  readonly metricsContentType: string;
  readonly build: Readonly<Record<string, string>>;
  readonly deps: Readonly<Record<string, string>>;
}

/** Session lifecycle, used by the engine's session step and by the auth plugins. */
export interface SessionService {
  /** Look up the record for a client-held session id; undefined when unknown. */
  find(id: string): Promise<SessionRecord | undefined>;
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
