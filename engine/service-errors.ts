// The service's own errors: every outcome the engine, its plugins and adapters decide themselves
// (the upstream's exceptions are mapped by manifest/errors.yaml instead). A site raises by code,
// `serviceError('SessionNotFound', detail)`, never with a status of its own; the OpenAPI document
// lists, on each operation, the statuses of the codes whose `on` holds for that route; the drift test
// (test/engine/service-error-registry.test.ts) proves every code raised in the source is here and every code here
// is raised somewhere. Adding an error is one row.
import { HttpError, type HttpErrorOptions, type ParamProblem } from './http-error.js';
import type { RouteSpec } from './types/route.js';

/** Where a code can be answered: a route predicate, or 'outside' for answers no operation gives (unrouted paths, /mcp). */
export type ErrorScope = ((route: RouteSpec) => boolean) | 'outside';

export interface ServiceErrorRow {
  readonly status: number;
  readonly hint?: string;
  readonly retryAfter?: number;
  /** One line for the document's table: when it happens. */
  readonly when: string;
  readonly on: ErrorScope;
}

const always = (): boolean => true;
const withSession = (route: RouteSpec): boolean => route.session !== 'none';
const callsUpstream = (route: RouteSpec): boolean => route.calls.length > 0 || route.plugin !== undefined;
const withParams = (route: RouteSpec): boolean => route.params.length > 0;
const withBody = (route: RouteSpec): boolean => route.method !== 'GET';
const fetchesUrls = (route: RouteSpec): boolean => route.params.some((p) => p.type === 'url');
const firstMatch = (route: RouteSpec): boolean => route.result.shape === 'find';
const fileResult = (route: RouteSpec): boolean => route.result.body === 'file';
const systemRoute = (route: RouteSpec): boolean => route.area === 'system';
/** Areas whose routes read or write the session store or the background layer's work store. */
const STORE_AREAS = new Set(['auth', 'console', 'events', 'webhooks', 'jobs', 'pools']);
/** A POST, PATCH or DELETE that acts on one account's platform: what an Idempotency-Key applies to (plugins/writes). */
export const keyedWrite = (route: RouteSpec): boolean => route.method !== 'GET' && route.session === 'required' && route.upstreamMethods.length > 0;

/** A route that reaches the platform for a session: the account-safety policy's budgets apply. */
const budgeted = (route: RouteSpec): boolean => route.session !== 'none' && route.upstreamMethods.length > 0;

export const SERVICE_ERRORS = {
  SessionRequired: {
    status: 401,
    on: withSession,
    when: 'The route acts for an account and no session ID was sent.',
    hint: 'Send the session ID from POST /auth/login in the X-Session-ID header.',
  },
  SessionNotFound: {
    status: 401,
    on: withSession,
    when: 'The session ID is unknown, revoked or logged out.',
    hint: 'Log in again with POST /auth/login and use the new session ID.',
  },
  ActionFrozen: {
    status: 429,
    on: (route) => route.session !== 'none' && route.upstreamMethods.length > 0 && route.area !== 'auth',
    when:
      "The platform blocked this action class for the session (FeedbackRequired): the class's calls are " +
      'refused before reaching the platform until Retry-After; the other classes go on.',
    hint: 'Wait for Retry-After before this kind of action; the body names the class and until when it is frozen.',
  },
  SessionThrottled: {
    status: 429,
    on: withSession,
    when: 'The platform throttled this session; calls wait for the back-off without reaching the platform.',
    hint: 'Wait for Retry-After; calls before then are refused without reaching the platform.',
  },
  ApiKeyRequired: {
    status: 401,
    on: (route) => route.scope !== 'none',
    when: 'The deployment has API keys (SOCIALGATE_API_KEY or named keys) and the request carried none, or a wrong or revoked one.',
    hint: 'Send the API key as Authorization: Bearer KEY or X-API-Key.',
  },
  ValidationError: { status: 422, on: withParams, when: 'A parameter is missing, malformed or out of range; `errors` names each one.' },
  UrlNotFetched: { status: 422, on: fetchesUrls, when: 'A by-URL parameter could not be fetched (refused address, bad answer, wrong content).' },
  PayloadTooLarge: { status: 413, on: withBody, when: 'The body, or a file in it, is over its limit; `errors` names the field.' },
  MalformedBody: { status: 400, on: withBody, when: 'A form or multipart body could not be parsed.' },
  MethodNotAllowed: { status: 405, on: always, when: 'The path exists but not with this method; Allow lists the methods it has.' },
  NothingMatches: { status: 404, on: firstMatch, when: 'The list the platform answered has no item matching the given parameters.' },
  UpstreamShapeError: { status: 502, on: callsUpstream, when: 'The upstream answered a value of an unexpected shape.' },
  UpstreamFileMissing: { status: 502, on: fileResult, when: 'The upstream reported a file it did not write.' },
  StoreUnavailable: {
    status: 503,
    retryAfter: 2,
    on: (route) => withSession(route) || STORE_AREAS.has(route.area),
    when:
      'The session store or the work store (jobs, webhooks, watches, pools, events) did not answer ' +
      'within SOCIALGATE_STORE_TIMEOUT_MS (or failed): a session not cached by this instance, a login, a ' +
      'change of a session or any background route cannot be served now. Cached sessions keep working.',
    hint: 'Retry after Retry-After; check the store server (GET /ready names it).',
  },
  SessionBusy: {
    status: 503,
    retryAfter: 1,
    on: withSession,
    when:
      'Another instance sharing the store runs a call for this session and did not end within ' +
      'SOCIALGATE_LEASE_WAIT_MS (calls of one session never overlap anywhere).',
    hint: 'Retry after Retry-After; a balancer that routes by X-Session-ID avoids the wait.',
  },
  NotReady: { status: 503, on: systemRoute, when: 'GET /ready: a dependency (store, upstream) is not ready; `checks` says which.' },
  InternalError: { status: 500, on: always, when: 'A failure inside the service; the log has its class and frames under the request id.' },
  ApiKeyAttemptsExceeded: {
    status: 429,
    on: (route) => route.scope !== 'none' || route.key === 'POST /console/key',
    when:
      'More than ten wrong API keys came from this client address this minute (headers or the console ' +
      'form): every try waits until the minute ends, unchecked.',
    hint: 'Wait for Retry-After, then send the right key.',
  },
  ApiKeyScopeMissing: {
    status: 403,
    on: (route) => route.scope !== 'none' || route.key === 'POST /console/key',
    when: "The request's API key lacks the scope the route needs (read, write or operator); the detail names it.",
    hint: 'Use a key with that scope (`socialgate keys add NAME --scope SCOPE`).',
  },
  ApiKeyAccountNotAllowed: {
    status: 403,
    on: (route) => route.scope !== 'none',
    when: "The request's API key is limited to other accounts than the session's (or a member's).",
    hint: 'Use a key allowed for that account, or a session of an account the key names.',
  },
  ApiKeyNameTaken: {
    status: 409,
    on: (route) => route.key === 'POST /keys',
    when: 'A key of that name exists.',
    hint: 'Revoke it first (DELETE /keys) or choose another name.',
  },
  HeaderTooLarge: {
    status: 431,
    on: 'outside',
    when: "The request line and headers are over the server's limit (16 KB), as a query string that long.",
    hint: 'Send long values in a form body (POST) or shorten the query.',
  },
  NoSuchRoute: { status: 404, on: 'outside', when: 'No route has this path.', hint: 'GET /openapi.json lists every route.' },
  HostNotAllowed: {
    status: 403,
    on: 'outside',
    when: '/mcp: the Host header is not an allowed host (DNS-rebinding protection).',
    hint: 'Add the host name to SOCIALGATE_MCP_ALLOWED_HOSTS.',
  },
  OriginNotAllowed: {
    status: 403,
    on: 'outside',
    when: '/mcp: a browser Origin that is not an allowed host.',
    hint: 'Browsers may call /mcp only from an allowed host (SOCIALGATE_MCP_ALLOWED_HOSTS).',
  },
  LibraryTooOld: {
    status: 422,
    on: (route) => route.since !== undefined,
    when: "The route needs a newer aiograpi than the one running (the manifest's `since`); nothing was sent to the platform.",
    hint: 'Upgrade aiograpi to the version the detail names (GET /deps names the running one); on the sandbox, set SOCIALGATE_SANDBOX_VERSION.',
  },
  IdempotencyKeyReused: {
    status: 422,
    on: keyedWrite,
    when: 'The Idempotency-Key was used within its lifetime for another request (method, path, parameters or uploaded files differ).',
    hint: 'Use a new key for a new request; a key names one request.',
  },
  IdempotencyKeyInFlight: {
    status: 409,
    retryAfter: 1,
    on: keyedWrite,
    when: 'A request with this Idempotency-Key is still running (here or on another instance).',
    hint: "Retry after Retry-After: the first request's answer is then replayed.",
  },
  WriteOutcomeUnknown: {
    status: 502,
    on: keyedWrite,
    when:
      'The write went to the platform but its answer was lost, and reading back could not confirm ' +
      'whether it happened; the detail names what to check. A keyed repeat reads back again, never ' +
      're-sends.',
    hint: 'Check the account as the detail says, or repeat with the same Idempotency-Key to read back again.',
  },
  UnknownTool: {
    status: 404,
    on: 'outside',
    when: '/mcp: tools/call names no tool of this endpoint.',
    hint: 'tools/list names the tools of this endpoint (with the dynamic set, find_routes finds them).',
  },
  ConfirmationRequired: {
    status: 403,
    on: 'outside',
    when: "/mcp: the tool's write class is one SOCIALGATE_MCP_CONFIRM names and the client cannot ask its human (no elicitation on this connection).",
    hint: 'Use a client that supports elicitation (protocol 2026-07-28), or have the operator leave this class out of SOCIALGATE_MCP_CONFIRM.',
  },
  ConfirmationDeclined: {
    status: 403,
    on: 'outside',
    when: '/mcp: the human declined (or cancelled) the confirmation the tool asked for; nothing was sent to the platform.',
  },
  ActionBudgetExceeded: {
    status: 429,
    on: budgeted,
    when:
      "The session's budget for the route's action class is spent in a window (minute, hour or UTC day); " +
      'nothing reached the platform. The body names `action_class`, `window`, `limit` and `reset_at`; ' +
      'Retry-After says when the window allows again.',
    hint: 'Wait for Retry-After, or see GET /policy (PATCH /policy changes the preset or the limits).',
  },
  OutsideActivityWindow: {
    status: 429,
    on: budgeted,
    when:
      "The session's activity window (PATCH /policy, in its timezone) is closed: writes (and reads, when " +
      'SOCIALGATE_POLICY_WINDOW_READS=refuse) wait until it opens; nothing reached the platform.',
    hint: 'Wait for Retry-After, or change the window with PATCH /policy.',
  },
  ResourceNotFound: {
    status: 404,
    on: (route) => route.owns === 'write',
    when: "/mcp: resources/read names no resource of this session; a scheduled write's routes: no scheduled write of the caller has this id.",
    hint: 'resources/list names what /mcp can read; GET /writes/scheduled lists the scheduled writes.',
  },
  ScheduleFull: {
    status: 429,
    on: (route) => route.method !== 'GET' && route.session !== 'none',
    when:
      'A write with `publish_at` (or one deferred by `Prefer: respond-async`) would keep more pending ' +
      'writes of the account (SOCIALGATE_SCHEDULE_MAX_PENDING) or more bytes of files ' +
      '(SOCIALGATE_SCHEDULE_MAX_MB) than allowed.',
    hint: 'Cancel scheduled writes (DELETE /writes/scheduled) or wait until some have run.',
  },
} as const satisfies Record<string, ServiceErrorRow>;

export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

/** A table of error rows: the engine's own, a module's, or all of them merged at boot. */
export type ServiceErrorTable = Readonly<Record<string, ServiceErrorRow>>;

/** Options a raise site may add: never a status or an exc_type, which the row decides. */
export type RaiseOptions = Omit<HttpErrorOptions, 'excType'>;

/** The one way the service raises an error of its own: by code, with the row's status and hint unless the site knows better. */
export function serviceError(code: ServiceErrorCode, detail: string, options: RaiseOptions = {}): HttpError {
  return raise(SERVICE_ERRORS[code], code, detail, options);
}

/**
 * A feature module's raise function over its own rows and the engine's: `export const serviceError =
 * raiserFor(POOL_ERRORS)` in the module's errors file, so its sites name only codes some table has.
 */
export function raiserFor<const R extends ServiceErrorTable>(
  rows: R,
): (code: (keyof R & string) | ServiceErrorCode, detail: string, options?: RaiseOptions) => HttpError {
  const table: ServiceErrorTable = { ...SERVICE_ERRORS, ...rows };
  return (code, detail, options = {}) => raise(table[code]!, code, detail, options);
}

function raise(row: ServiceErrorRow, code: string, detail: string, options: RaiseOptions): HttpError {
  return new HttpError(row.status, detail, { hint: row.hint, retryAfter: row.retryAfter, ...options, excType: code });
}

/** A 422 that names every offending parameter. */
export function invalidParams(errors: readonly ParamProblem[]): HttpError {
  const detail = 'Invalid parameters: ' + errors.map((e) => `${e.param} (${e.problem})`).join('; ');
  return serviceError('ValidationError', detail, { errors });
}

/** The codes a route can answer, for its documented responses (the merged table: the engine's and its modules'). */
export function serviceCodesFor(route: RouteSpec, table: ServiceErrorTable = SERVICE_ERRORS): string[] {
  return codes(table).filter((code) => {
    const on: ErrorScope = table[code]!.on;
    return on !== 'outside' && on(route);
  });
}

export const codes = (table: ServiceErrorTable = SERVICE_ERRORS): string[] => Object.keys(table);
