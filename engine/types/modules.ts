// Feature modules: what a feature brings to the service (its plugins by the manifest's name, its
// errors, settings, event types, route guards, background work, resolvers, session sources and
// served assets), declared in one object the composition root lists. The engine merges the list at
// boot (engine/modules.ts) and refuses two modules declaring one name; it knows no feature by name.
import type Koa from 'koa';
import type { ServiceErrorRow } from '../service-errors.js';
import type { Caller, KeyGrant } from './caller.js';
import type { KeyRing } from '../keys.js';
import type { RouteGuard } from './guards.js';
import type { Background, Plugin } from './plugins.js';
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
export interface SessionSource {
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

export interface FeatureModule {
  /** For boot errors and the settings table's "module" column. */
  readonly name: string;
  /** Route handlers by the name the manifest's `plugin` uses. */
  readonly plugins?: Readonly<Record<string, Plugin>>;
  /** The module's own error codes (rows like engine/service-errors.ts's). */
  readonly errors?: Readonly<Record<string, ServiceErrorRow>>;
  readonly settings?: readonly SettingRow[];
  readonly eventTypes?: readonly EventTypeRow[];
  /** Route guards, outermost first (engine/types/guards.ts). */
  readonly guards?: readonly RouteGuard[];
  /** Where a request's session can come from besides its id (pools). */
  readonly sessionSources?: readonly SessionSource[];
  /** Background work: defines the module's kinds on the queue before it starts. */
  readonly background?: Background;
  /** Resolvers by the name the manifest uses. */
  readonly resolvers?: Readonly<Record<string, Resolver>>;
  /** Served by exact path, without a key (the page's assets carry no secret). */
  readonly assets?: AssetHandlers;
  readonly keyProofs?: readonly KeyProof[];
}
