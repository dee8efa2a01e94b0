// The engine's contracts: the normalised route record that the manifest becomes, and the ports
// (upstream, session store, plugins, registries) that adapters and plugins implement.
// Everything downstream of the loader reads these types, never raw YAML.

import type { ServiceErrorTable } from '../service-errors.js';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type ParamSource = 'query' | 'form' | 'file';
export type ParamType = 'string' | 'id' | 'integer' | 'number' | 'boolean' | 'json' | 'file' | 'url';
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonSchema = Record<string, unknown>;

/** One request parameter after normalisation. */
export interface ParamSpec {
  readonly name: string;
  /** The part of the request that carries it: GET and DELETE the query, POST and PATCH the form, files multipart. */
  readonly in: ParamSource;
  readonly type: ParamType;
  readonly required: boolean;
  readonly repeated: boolean;
  readonly default?: JsonValue;
  readonly description?: string;
  /** The value of this parameter in the route's example request (decoded, for json parameters). */
  readonly example?: JsonValue;
  /** JSON Schema of the decoded value (for `json` parameters, the content schema of one item). */
  readonly schema: JsonSchema;
  /** Upstream keyword this parameter becomes; null when the route only uses it to choose a call. */
  readonly upstream: string | null;
  /** Coercion tag from the coercion registry (the param's type). */
  readonly coerce: string;
  /** For file and url params: the accepted kind of content (one of CONTENT_KINDS). */
  readonly format?: string;
  /** The upstream library version that added this (optional) parameter; older libraries get a 422 naming it. */
  readonly since?: string;
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
  /** The content type the answer is written and documented with: the shape's, or the manifest's `content_type`. */
  readonly contentType: string;
  /** How the responder writes it: the shape's. */
  readonly body: ResultBody;
}

/** JSON data; text in its own content type; a file (one, or several zipped); a live stream. */
export type ResultBody = 'json' | 'text' | 'file' | 'stream';

/** A route's parameters by the part of the request that carries them (each list in manifest order). */
export interface RequestParts {
  readonly query: readonly ParamSpec[];
  readonly form: readonly ParamSpec[];
  readonly files: readonly ParamSpec[];
}

export type SessionMode = 'required' | 'optional' | 'none';

/** What an API key must allow for a route (`none`: the open system routes). */
export type RouteScope = 'read' | 'write' | 'operator' | 'none';

/**
 * The kinds of content a file or url parameter may accept (its manifest `format`): declared once
 * here, for the manifest's check and for the transfer adapter's media types of each kind.
 */
export const CONTENT_KINDS = ['image', 'video', 'image_or_video', 'audio', 'any'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/**
 * What a route does to the account, the way the platform counts actions: `read`, or one class of
 * write. Per-class budgets, the MCP tools' annotations and confirmation, and the idempotency of
 * writes read it. Declared once here (the format schema's `definitions.action` lists the same).
 */
export const ACTION_CLASSES = ['read', 'like', 'comment', 'follow', 'direct', 'post', 'profile', 'other'] as const;
export type ActionClass = (typeof ACTION_CLASSES)[number];
/** The classes that change the account: every class but `read`. */
export type WriteClass = Exclude<ActionClass, 'read'>;

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
  /**
   * The upstream library version that added the route's methods (manifest `since`): a route beyond the
   * specification's aiograpi, refused by name (LibraryTooOld) when an older library runs.
   */
  readonly since?: string;
  readonly session: SessionMode;
  /** The API-key scope the route needs (manifest `scope`, else by area and method). */
  readonly scope: RouteScope;
  /** The owned resource the route names by its id (manifest `owns`): isolated per owner, never read through X-Pool. */
  readonly owns?: 'job' | 'webhook' | 'pool' | 'write';
  /**
   * The action class: the manifest's `action`, else `read` for GET and the area file's `action`
   * (or `other`) for writes. A budget counts calls per (session, class); a write class (anything
   * but `read`) is what the idempotency layer keys and what MCP may ask a human to confirm.
   */
  readonly action: ActionClass;
  /**
   * How a write whose answer was lost is read back (manifest `reconcile`, else the file's): a check
   * the writes plugin names, or `none`; absent, the plugin picks the check of the route's upstream method.
   */
  readonly reconcile?: string;
  /** Marked for the MCP endpoint's default (core) tool set. */
  readonly core: boolean;
  /** The route exists only on this upstream (manifest `upstream_only`): the sandbox's own tools. */
  readonly upstreamOnly?: string;
  /** Beyond the specification's endpoint catalogue (manifest `extension: true`): a route this service adds. */
  readonly extension?: true;
  /** In one of the service's own areas (manifest area `own: true`): the service's records, not the platform's. */
  readonly own?: true;
  readonly plugin?: string;
  readonly params: readonly ParamSpec[];
  /** The same parameters, by where the request carries them: what the reader, the body parser and the document read. */
  readonly request: RequestParts;
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
  /** The service's own error rows: the engine's and its feature modules' (engine/modules.ts); the engine's alone when absent. */
  readonly serviceErrors?: ServiceErrorTable;
}

// -- Errors ----------------------------------------------------------------------------------

export interface ErrorRow {
  readonly status: number;
  readonly hint?: string;
  /** Seconds for a Retry-After header (429 family). */
  readonly retryAfter?: number;
  /** Body detail override; otherwise the upstream message. */
  readonly detail?: string;
  /**
   * The state a session that met this exception is in: a challenge waits for its owner; a freeze stops
   * only the action class of the route that met it (an account-safety guard keeps it), not the session.
   */
  readonly session?: 'challenge' | 'freeze';
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
/** What a login failure of a newer library tells beyond its class: the CAA flow's step markers and the typed reason beneath a generic error. */
export interface LoginDetails {
  readonly caa_actions?: readonly string[];
  readonly login_reason?: string;
}

export class UpstreamError extends Error {
  readonly excType: string;
  readonly bases: readonly string[];
  readonly lastJson?: JsonValue;
  readonly retryAfter?: number;
  /** Diagnostics the library attaches to a login failure (aiograpi 2.0's `caa_actions`, the typed reason a generic error wraps): shown in the body. */
  readonly login?: LoginDetails;
  constructor(excType: string, message: string, extra: { bases?: readonly string[]; lastJson?: JsonValue; retryAfter?: number; login?: LoginDetails } = {}) {
    super(message);
    this.name = 'UpstreamError';
    this.excType = excType;
    this.bases = extra.bases ?? [];
    this.lastJson = extra.lastJson;
    this.retryAfter = extra.retryAfter;
    if (extra.login) this.login = extra.login;
  }
}
