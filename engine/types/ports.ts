// -- Upstream port ---------------------------------------------------------------------------

/** What a live upstream client is built from: everything but secrets the caller typed. */
export interface ClientOptions {
  /** The upstream's settings export (cookies, device, uuids...); empty for a fresh client. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly proxy?: string;
  readonly locale?: string;
  /** Timezone offset in seconds. */
  readonly timezone?: number;
  /**
   * A stable, non-secret name of the session the client serves (the account pk), so an adapter
   * that spreads clients over processes keeps a session on one across reopenings. Never the
   * session id: adapters may log it.
   */
  readonly sessionKey?: string;
  /**
   * Upgrade a saved app profile to the library's current one, keeping the device's identifiers
   * (aiograpi's override_app_version): the operator's way past 2.0's refusal of old profiles.
   */
  readonly upgradeAppProfile?: boolean;
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
  /**
   * The platform account (its pk) this client acts for, as of the settings it was opened with or
   * last exported; undefined while logged out. Only the adapter knows where its settings keep it.
   */
  account(): string | undefined;
  close(): Promise<void>;
  /** The account's realtime stream, where the library has one (aiograpi 1.1+): rings on each new message. */
  realtime?(handlers: RealtimeHandlers): Promise<RealtimeSubscription>;
}

export interface RealtimeHandlers {
  /** Something arrived (the payload's shape is the platform's private business: the caller polls). */
  message(): void;
  /** The stream died (told once); the caller reconnects when it wants to. */
  lost(reason: string): void;
}

export interface RealtimeSubscription {
  stop(): Promise<void>;
}

export interface CallOptions {
  /** Security code to hand the upstream's challenge handler for this one call only. */
  readonly challengeCode?: string;
  readonly signal?: AbortSignal;
  /**
   * The call is to one of the library's async iterators (UpstreamCapabilities.iterators), read as
   * a server-side cursor: without `cursor` the iterator is started, with it the open one goes on;
   * the answer is an IteratorPage of at most `size` items.
   */
  readonly page?: { readonly cursor?: string; readonly size: number };
}

/** One page read from an async iterator: its items, and the cursor to read on with (absent once it is spent). */
export interface IteratorPage {
  readonly items: readonly unknown[];
  readonly cursor?: string;
}

export interface ReadyCheck {
  readonly ok: boolean;
  readonly detail?: string;
}

/** The client library behind an adapter, as /build and /deps report it. */
export interface UpstreamLibrary {
  readonly name: string;
  readonly version: string;
  /** The adapter imitates this library (the sandbox) instead of running it: /deps leaves it out. */
  readonly emulated?: boolean;
  /** What the library can do, once known (a sidecar tells it when it starts). */
  readonly capabilities?: UpstreamCapabilities;
}

/** The installed library's capabilities, told by what its Client has, never by its version string. */
export interface UpstreamCapabilities {
  /** 2.0: login() runs only the new (CAA) flow; the old one is login_legacy(). */
  readonly login_legacy?: boolean;
  /** The private API's default transport: "httpx" (1.x) or 2.0's HTTP/2 client (curl_cffi). */
  readonly transport?: string;
  /** 1.12: settings exports carry a device signing key the library reads when it builds a client. */
  readonly device_key?: boolean;
  /** The constructor takes override_app_version (a saved app profile can be upgraded). */
  readonly app_profile_upgrade?: boolean;
  /** 2.0.6: the state of a publish whose answer was lost. */
  readonly media_upload_status?: boolean;
  /** 2.0.6: fresh addresses for a video whose addresses expired. */
  readonly video_refresh_resources?: boolean;
  /** The async iterators jobs can page with. */
  readonly iterators?: readonly string[];
}

/** One thing to make happen to an account: someone messages, asks, likes, comments or follows. */
export interface HappeningRequest {
  readonly kind: string;
  /** A user pk or username; chosen by the world when absent. */
  readonly from?: string;
  readonly mediaPk?: string;
  readonly text?: string;
}

export interface UpstreamAdapter {
  readonly name: string;
  /** The library as far as is known without starting anything: the version may still be "unknown". */
  readonly library: UpstreamLibrary;
  /**
   * The library as the running upstream reports it, starting whatever must run to learn it (a
   * sidecar reads the installed version when it starts). Without it, `library` is the answer.
   */
  describe?(): Promise<UpstreamLibrary>;
  /**
   * The bytes behind a URL of the upstream's own media host, when it serves one without any network
   * (the sandbox's): by-URL uploads take them from here instead of fetching. Undefined: fetch it.
   */
  mediaBytes?(url: string): Buffer | undefined;
  /**
   * Results cross a boundary that loses their types (the sidecar's JSON: small ids as numbers,
   * integers past 2^53 as strings): the engine types each response by its route's schema
   * (engine/typing.ts). The sandbox emits schema-typed values and leaves this unset.
   */
  readonly resultsNeedTyping?: boolean;
  /**
   * A simulated world's happenings, on demand (the sandbox's POST /sandbox/activity); absent on a
   * real platform. A request it cannot honour throws the service's validation error naming the field.
   */
  happen?(account: string, request: HappeningRequest): object;
  /** Whether clients offer `realtime` (asked once at start: it may have to start a sidecar to know). */
  realtimeCapable?(): Promise<boolean>;
  /** Builds a client from stored options; must not call the platform. */
  open(options: ClientOptions): Promise<UpstreamClient>;
  ready(): Promise<ReadyCheck>;
  close(): Promise<void>;
}

// -- Session store port ----------------------------------------------------------------------

export type SessionState = 'active' | 'challenge' | 'throttled' | 'logged_out';

/**
 * The engine's fields of a session record (engine/record-fields.ts lists their names). A feature
 * module keeps fields of its own here by declaring them (FeatureModule.recordFields) and adding
 * their types by module augmentation of this interface in its own folder (plugins/policy/frozen.ts).
 */
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
  /** A name the operator gave the session (console, `sessions label`), to tell sessions of one account apart. */
  readonly label?: string;
}

/**
 * One call at a time per session across instances sharing a store: a lease held in the shared store
 * around each upstream call (Redis: SET NX PX with a token, renewed while the call runs; PostgreSQL:
 * an advisory lock on a connection held for the call). A holder that dies releases it (Redis: when
 * the lease time ends; PostgreSQL: when its connection drops).
 */
export interface SessionLease {
  /**
   * Runs `work` holding the lease named `key`. Waits for another holder at most the configured
   * wait, then throws 503 SessionBusy with Retry-After. When the store cannot be reached it runs
   * `work` without the lease (a cached session keeps working through an outage) and says so once.
   */
  hold<T>(key: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The expiry sweep's record since start, for /metrics. */
export interface SweepStats {
  readonly runs: number;
  readonly failures: number;
  readonly removed: number;
}

/** What changeMany did with one record. */
export type ChangeOutcome =
  | { readonly status: 'written'; readonly before: SessionRecord; readonly after: SessionRecord }
  /** `change` left it as it was (its answer was undefined). */
  | { readonly status: 'kept'; readonly before: SessionRecord }
  /** No live record: deleted, expired, or unreadable with this store's key. */
  | { readonly status: 'missing' }
  /** Another writer changed it between the read and the write: not written. */
  | { readonly status: 'conflict' };

export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined>;
  set(record: SessionRecord): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** Every live record, in bounded memory whatever the count. */
  list(): AsyncIterable<SessionRecord>;
  /** Stores that sweep expired records themselves report how it goes. */
  sweepStats?(): SweepStats;
  /**
   * Many records changed at once (the write-behind of session uses), off the request path: the
   * records read together, `change` gives each one's new value (undefined: leave it), and they are
   * written in one transaction per 500 records at most, each only where it is still as read (compare and
   * set), so a record another writer changed meanwhile is never overwritten. Stores without it
   * (memory, Redis) are written one record at a time.
   */
  changeMany?(ids: readonly string[], change: (stored: SessionRecord) => SessionRecord | undefined): Promise<ReadonlyMap<string, ChangeOutcome>>;
  ready(): Promise<ReadyCheck>;
  close(): Promise<void>;
}

// -- API keys port ---------------------------------------------------------------------------

/** A named API key as kept: never the key itself, only its SHA-256 (hex). */
export interface StoredKey {
  readonly name: string;
  readonly hash: string;
  readonly scopes: readonly ('read' | 'write' | 'operator')[];
  readonly accounts?: readonly string[];
  readonly pools?: readonly string[];
  readonly createdAt: number;
}

/** The named keys, kept beside the sessions (so every instance on the store shares them): a handful, read whole. */
export interface KeyStore {
  all(): Promise<readonly StoredKey[]>;
  /** One read-change-write of the whole set; answers the set as written. */
  change(edit: (keys: readonly StoredKey[]) => readonly StoredKey[]): Promise<readonly StoredKey[]>;
  close(): Promise<void>;
}
