// Feature modules: what a feature brings to the service (its plugins by the manifest's name, its
// errors, settings, event types, route guards, background work, resolvers, session sources, session
// views and served assets), declared in one object the composition root lists. The engine merges the
// list at boot (engine/modules.ts) and refuses two modules declaring one name; it knows no feature by
// name.
//
// A module's state lives in the parts its `start` answers, once per app. The engine starts the modules
// after their `needs` (a module reads a needed module's parts through `partsOf`, typed by that module)
// and hands each module's parts to its own plugins, guards, session sources and views, bound at boot:
// no module finds another's state by a lookup at request time.
import type Koa from 'koa';
import type { ServiceErrorRow } from '../service-errors.js';
import type { Caller, KeyGrant } from './caller.js';
import type { KeyRing } from '../keys.js';
import type { RouteGuard } from './guards.js';
import type { Plugin } from './plugins.js';
import type { Config } from './plugins.js';
import type { JsonValue } from './route.js';
import type { SessionRecord } from './ports.js';
import type { Resolver } from './registries.js';
import type { RouteSpec } from './route.js';
import type { Services } from './plugins.js';

/**
 * One row of the settings table: a SOCIALGATE_* variable a module reads from config.extra. The
 * start refuses a variable no row names and a value its row's `parse` refuses; the README's
 * configuration tables are checked against the rows both ways (test/project/settings.test.ts).
 */
export interface SettingRow {
  /** The variable without its SOCIALGATE_ prefix, as config.extra holds it (JOB_INTERVAL_MS). */
  readonly name: string;
  /** The default as the README shows it (`2000`, `none`, `key file`). */
  readonly default: string;
  readonly describe: string;
  /** Checks a value at start; throws an Error naming the setting. Absent: any text. */
  readonly parse?: (raw: string) => unknown;
}

/** An event type a module emits into the outbox (webhooks filter on it, /events streams it). */
export interface EventTypeRow {
  readonly type: string;
  readonly describe: string;
}

/**
 * Finds the session a request acts for when it names none (X-Pool: a healthy member of a pool).
 * Bound once per route at boot: undefined when the route never takes one from this source.
 */
export interface SessionSource<P = unknown> {
  readonly name: string;
  /** `parts`: what the owning module's start made for this app. */
  bind(route: RouteSpec, services: Services, parts: P): SessionFinder | undefined;
}

/** A session source with its module's parts bound (what the route table binds per route). */
export interface BoundSessionSource {
  readonly name: string;
  bind(route: RouteSpec, services: Services): SessionFinder | undefined;
}

/** What a bound session source sees of a request; answers undefined when the request does not use it. */
export type SessionFinder = (request: SourceRequest) => Promise<SessionRecord | undefined>;

export interface SourceRequest {
  /** A request header ('' when absent). */
  header(name: string): string;
  readonly caller: Caller;
}

/**
 * Another way a request proves the deployment's own key (SOCIALGATE_API_KEY) when it sends none in a
 * header: the console page's cookie. Checked only for requests that carry no key.
 */
export interface KeyProof {
  readonly name: string;
  /** The grant of the key the request proves it holds (the legacy key, or a named key the ring still has); undefined when it proves none. */
  grant(request: ProofRequest, keys: ProofKeys): Promise<KeyGrant | undefined>;
}

/** The keys a proof may check against. */
export interface ProofKeys {
  readonly legacyKey?: string;
  readonly ring: KeyRing;
}

export interface ProofRequest {
  readonly method: string;
  /** A request header ('' when absent). */
  header(name: string): string;
  cookie(name: string): string | undefined;
}

/** Static answers served by exact path beside the route table (the console's built assets). */
export type AssetHandlers = () => ReadonlyMap<string, Koa.Middleware>;

/** What a module's start receives: the app's services, the parts of the modules it needs, the session views. */
export interface ModuleStart {
  readonly services: Services;
  /** The parts a module named in `needs` made for this app (that module started first); any other module is a boot error. */
  partsOf<Q>(module: FeatureModule<Q>): Q;
  /** Every module's session views, bound to its parts; only for a module that sets `readsSessionViews` (it starts after them). */
  readonly sessionViews: readonly BoundSessionView[];
  /** The clock module state reads (tests move it); Date.now unless the app was given another. */
  readonly clock: () => number;
}

/** A route guard a module builds for an app, with where it sits: a lower order is further out (runs first). */
export interface OrderedGuard {
  readonly order: number;
  readonly guard: RouteGuard;
}

/**
 * A panel of the console's session view that a module owns the data of (budgets, frozen classes,
 * the watcher): read for many records at once, one value per record id (absent: the panel's `empty`).
 */
export interface SessionView<P = unknown> {
  /** The field of the console's session view. */
  readonly name: string;
  /** What a record the module says nothing of shows. */
  readonly empty: JsonValue;
  read(parts: P, records: readonly SessionRecord[], now: number): Promise<ReadonlyMap<string, JsonValue>>;
}

/** A session view with its module's parts bound (what the console reads). */
export interface BoundSessionView {
  readonly name: string;
  readonly empty: JsonValue;
  read(records: readonly SessionRecord[], now: number): Promise<ReadonlyMap<string, JsonValue>>;
}

/** `P`: what the module's `start` answers for each app (its state), handed to its plugins, guards, sources and views. */
export interface FeatureModule<P = unknown> {
  /** For boot errors and the settings table's "module" column. */
  readonly name: string;
  /** Route handlers by the name the manifest's `plugin` uses; each receives this module's parts. */
  readonly plugins?: Readonly<Record<string, Plugin<P>>>;
  /** The module's own error codes (rows like engine/service-errors.ts's). */
  readonly errors?: Readonly<Record<string, ServiceErrorRow>>;
  readonly settings?: readonly SettingRow[];
  readonly eventTypes?: readonly EventTypeRow[];
  /** Modules whose parts this one's start reads (they start before it). */
  readonly needs?: readonly FeatureModule[];
  /**
   * Makes the module's state for one app, before the routes are bound and the queue starts (a
   * background module defines its work kinds here; it answers undefined where it cannot run).
   */
  start?(context: ModuleStart): P;
  /** Ends what start opened, when the app closes. */
  stop?(parts: P): Promise<void>;
  /** The module's route guards for an app (engine/types/guards.ts), built from its settings and parts; the engine orders all modules' by `order`. */
  guards?(config: Config, parts: P): readonly OrderedGuard[];
  /** Where a request's session can come from besides its id (pools). */
  readonly sessionSources?: readonly SessionSource<P>[];
  /** Panels of the console's session view whose data the module owns. */
  readonly sessionViews?: readonly SessionView<P>[];
  /** The module renders the other modules' session views (it starts after every module that declares some). */
  readonly readsSessionViews?: boolean;
  /** Resolvers by the name the manifest uses. */
  readonly resolvers?: Readonly<Record<string, Resolver>>;
  /** Served by exact path, without a key (the page's assets carry no secret). */
  readonly assets?: AssetHandlers;
  readonly keyProofs?: readonly KeyProof[];
  /** Fields the module keeps on session records (its type there by augmenting SessionRecord); the engine's own names are refused. */
  readonly recordFields?: readonly RecordField[];
}

/**
 * A session-record field a module owns (the policy's `frozen`): the stores keep it as they keep the
 * engine's own, and its type reaches SessionRecord by module augmentation in the owning module
 * (`declare module '.../engine/types/ports.js' { interface SessionRecord { readonly frozen?: ... } }`).
 */
export interface RecordField {
  readonly name: string;
  readonly describe: string;
  /**
   * What session.state.changed carries when the field moved between two versions of a record in a
   * way readers hear of (a class newly frozen); undefined when it did not. Such a move is a state
   * change even where the state itself stayed.
   */
  changed?(before: SessionRecord, after: SessionRecord): FieldChange | undefined;
  /** The event's fields when it did not move (null each), so that every session.state.changed carries the same keys. */
  readonly unchanged?: Readonly<Record<string, JsonValue>>;
  /**
   * The account's platform-side standing (a class the platform blocked): kept when the same account's
   * session is made again under a new id (PATCH /auth/settings), as the throttle is, so a new id
   * never lifts what the platform imposed.
   */
  readonly carried?: boolean;
}

/** A declared record field's move, as the state change carries it. */
export interface FieldChange {
  /** Fields of the event's data (snake_case, never a secret). */
  readonly data: Readonly<Record<string, JsonValue>>;
  /** What tells this move from another of the same state (parts of the event's id). */
  readonly id: readonly (string | number)[];
}
