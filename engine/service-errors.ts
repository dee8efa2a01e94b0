// The service's own errors: every outcome the engine, its plugins and adapters decide themselves
// (the upstream's exceptions are mapped by manifest/errors.yaml instead). A site raises by code,
// `serviceError('SessionNotFound', detail)`, never with a status of its own; the OpenAPI document
// lists, on each operation, the statuses of the codes whose `on` holds for that route; the drift test
// (test/service-errors.test.ts) proves every code raised in the source is here and every code here
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
const byConsoleRef = (route: RouteSpec): boolean => route.area === 'console' && route.params.some((p) => p.name === 'ref');
/** Areas whose routes read or write the session store or the background layer's work store. */
const STORE_AREAS = new Set(['auth', 'console', 'events', 'webhooks', 'jobs', 'pools']);
const consoleWork = (route: RouteSpec): boolean => route.area === 'console' && /^\/console\/(jobs|pools)/.test(route.path);
/** A GET that reads the platform may go to a pool member (X-Pool); the service's own records (jobs, webhooks) never do. */
export const poolReads = (route: RouteSpec): boolean => route.method === 'GET' && route.session !== 'none' && route.upstreamMethods.length > 0;

export const SERVICE_ERRORS = {
  SessionRequired: { status: 401, on: withSession, when: 'The route acts for an account and no session ID was sent.', hint: 'Send the session ID from POST /auth/login in the X-Session-ID header.' },
  SessionNotFound: { status: 401, on: withSession, when: 'The session ID is unknown, revoked or logged out.', hint: 'Log in again with POST /auth/login and use the new session ID.' },
  SessionThrottled: { status: 429, on: withSession, when: 'The platform throttled this session; calls wait for the back-off without reaching the platform.', hint: 'Wait for Retry-After; calls before then are refused without reaching the platform.' },
  ApiKeyRequired: { status: 401, on: (route) => route.scope !== 'none', when: 'The deployment has API keys (SOCIALGATE_API_KEY or named keys) and the request carried none, or a wrong or revoked one.', hint: 'Send the API key as Authorization: Bearer KEY or X-API-Key.' },
  ValidationError: { status: 422, on: withParams, when: 'A parameter is missing, malformed or out of range; `errors` names each one.' },
  UrlNotFetched: { status: 422, on: fetchesUrls, when: 'A by-URL parameter could not be fetched (refused address, bad answer, wrong content).' },
  PayloadTooLarge: { status: 413, on: withBody, when: 'The body, or a file in it, is over its limit; `errors` names the field.' },
  MalformedBody: { status: 400, on: withBody, when: 'A form or multipart body could not be parsed.' },
  MethodNotAllowed: { status: 405, on: always, when: 'The path exists but not with this method; Allow lists the methods it has.' },
  NothingMatches: { status: 404, on: firstMatch, when: 'The list the platform answered has no item matching the given parameters.' },
  UpstreamShapeError: { status: 502, on: callsUpstream, when: 'The upstream answered a value of an unexpected shape.' },
  UpstreamFileMissing: { status: 502, on: fileResult, when: 'The upstream reported a file it did not write.' },
  StoreUnavailable: { status: 503, retryAfter: 2, on: (route) => withSession(route) || STORE_AREAS.has(route.area), when: 'The session store or the work store (jobs, webhooks, watches, pools, events) did not answer within ' +
'SOCIALGATE_STORE_TIMEOUT_MS (or failed): a session not cached by this instance, a login, a change of a ' +
'session or any background route cannot be served now. Cached sessions keep working.', hint: 'Retry after Retry-After; check the store server (GET /ready names it).' },
  SessionBusy: { status: 503, retryAfter: 1, on: withSession, when: 'Another instance sharing the store runs a call for this session and did not end within ' +
'SOCIALGATE_LEASE_WAIT_MS (calls of one session never overlap anywhere).', hint: 'Retry after Retry-After; a balancer that routes by X-Session-ID avoids the wait.' },
  NotReady: { status: 503, on: systemRoute, when: 'GET /ready: a dependency (store, upstream) is not ready; `checks` says which.' },
  InternalError: { status: 500, on: always, when: 'A failure inside the service; the log has its class and frames under the request id.' },
  ConsoleSessionNotFound: { status: 404, on: byConsoleRef, when: 'No session of the store has this ref (revoked, expired, or never listed).', hint: 'GET /console/sessions lists the refs.' },
  ConsoleNotBuilt: { status: 503, on: (route) => route.key === 'GET /console', when: 'The console page has not been built into dist/console.', hint: 'Run `npm run build` (npm ci runs it).' },
  ApiKeyAttemptsExceeded: { status: 429, on: (route) => route.scope !== 'none' || route.key === 'POST /console/key', when: 'More than ten wrong API keys came from this client address this minute (headers or the console form): every ' +
'try waits until the minute ends, unchecked.', hint: 'Wait for Retry-After, then send the right key.' },
  ApiKeyScopeMissing: { status: 403, on: (route) => route.scope !== 'none', when: "The request's API key lacks the scope the route needs (read, write or operator); the detail names it.", hint: 'Use a key with that scope (`socialgate keys add NAME --scope SCOPE`).' },
  ApiKeyAccountNotAllowed: { status: 403, on: (route) => route.scope !== 'none', when: "The request's API key is limited to other accounts than the session's (or a member's).", hint: 'Use a key allowed for that account, or a session of an account the key names.' },
  ApiKeyNameTaken: { status: 409, on: (route) => route.key === 'POST /keys', when: 'A key of that name exists.', hint: 'Revoke it first (DELETE /keys) or choose another name.' },
  ApiKeyNotFound: { status: 404, on: (route) => route.key === 'DELETE /keys', when: 'No key has that name.', hint: 'GET /keys lists them.' },
  PoolNameTaken: { status: 409, on: (route) => route.key === 'POST /pools' || route.key === 'POST /console/pools/members', when: 'Another owner has a pool of that name (pool names are shared by every owner).', hint: 'Choose another name.' },
  ApiKeyWrong: { status: 401, on: (route) => route.key === 'POST /console/key', when: 'The key typed into the console is not this service\'s API key.', hint: 'The key is SOCIALGATE_API_KEY of this service.' },
  HeaderTooLarge: { status: 431, on: 'outside', when: 'The request line and headers are over the server\'s limit (16 KB), as a query string that long.', hint: 'Send long values in a form body (POST) or shorten the query.' },
  NoSuchRoute: { status: 404, on: 'outside', when: 'No route has this path.', hint: 'GET /openapi.json lists every route.' },
  HostNotAllowed: { status: 403, on: 'outside', when: '/mcp: the Host header is not an allowed host (DNS-rebinding protection).', hint: 'Add the host name to SOCIALGATE_MCP_ALLOWED_HOSTS.' },
  OriginNotAllowed: { status: 403, on: 'outside', when: '/mcp: a browser Origin that is not an allowed host.', hint: 'Browsers may call /mcp only from an allowed host (SOCIALGATE_MCP_ALLOWED_HOSTS).' },
  LibraryTooOld: { status: 422, on: (route) => route.since !== undefined, when: 'The route needs a newer aiograpi than the one running (the manifest\'s `since`); nothing was sent to the platform.', hint: 'Upgrade aiograpi to the version the detail names (GET /deps names the running one); on the sandbox, set SOCIALGATE_SANDBOX_VERSION.' },
  PoolNotAllowed: { status: 422, on: (route) => route.session === 'required' && !poolReads(route), when: 'A route that acts for one account (not a GET that reads the platform) was sent X-Pool instead of a session.', hint: 'Send X-Session-ID of the account that should act.' },
  PoolsUnavailable: { status: 503, on: poolReads, when: 'X-Pool was sent to an instance built without the background layer.' },
  PoolThrottled: { status: 429, on: (route) => poolReads(route) || route.area === 'jobs', when: 'X-Pool: no member is healthy and some cool down after a throttle; Retry-After says when the first is back.', hint: 'Retry after the Retry-After delay, or add members to the pool.' },
  PoolUnavailable: { status: 503, on: (route) => poolReads(route) || route.area === 'jobs', when: 'X-Pool: no member is healthy, all are quarantined (challenge, logged out, revoked) or there are none.', retryAfter: 60, hint: "Resolve the members' challenges or log them in again (PATCH /auth/relogin), or add members." },
  PoolNotFound: { status: 404, on: (route) => poolReads(route) || route.area === 'pools' || route.area === 'jobs' || consoleWork(route), when: 'X-Pool or `pool`/`name` names no pool.', hint: 'POST /pools creates one; GET /pools lists them.' },
  PoolMemberNotFound: { status: 404, on: (route) => route.area === 'pools' || consoleWork(route), when: 'The pool has no such member.' },
  WatchNotFound: { status: 404, on: (route) => route.key === 'DELETE /events/watch', when: 'The session is not watched (GET /events/watch answers `watching: false`).', hint: 'POST /events/watch starts watching it.' },
  WebhookNotFound: { status: 404, on: (route) => route.area === 'webhooks' && route.params.some((p) => p.name === 'id'), when: 'No webhook endpoint has this id.', hint: 'GET /webhooks lists the endpoints.' },
  WebhookUrlRefused: { status: 422, on: (route) => route.key === 'POST /webhooks', when: 'The endpoint URL cannot be delivered to: not http(s), credentials in it, or an address the guard refuses ' +
'(loopback, private) without an allow-list entry.', hint: 'Use a public http(s) URL, or allow-list the host with SOCIALGATE_FETCH_ALLOW.' },
  EventNotFound: { status: 404, on: (route) => route.key === 'POST /webhooks/replay', when: "The event is not in the endpoint's delivery log, or no longer in its session's retained log.", hint: 'GET /webhooks/deliveries lists the events sent to the endpoint.' },
  EventsUnavailable: { status: 503, on: (route) => route.area === 'events' || route.area === 'webhooks' || route.key === 'POST /console/sessions/watch', when: 'The instance was built without the background layer.' },
  JobNotFound: { status: 404, on: (route) => route.area === 'jobs', when: 'No job has this id.', hint: 'GET /jobs lists the jobs of a session or pool.' },
  JobsUnavailable: { status: 503, on: (route) => route.area === 'jobs' || route.area === 'pools' || consoleWork(route), when: 'The instance was built without the background layer.' },
  UnknownTool: { status: 404, on: 'outside', when: '/mcp: tools/call names no tool of this endpoint.', hint: 'tools/list names the tools of this endpoint (with the dynamic set, find_routes finds them).' },
  ConfirmationRequired: { status: 403, on: 'outside', when: '/mcp: the tool\'s write class is one SOCIALGATE_MCP_CONFIRM names and the client cannot ask its human (no elicitation on this connection).', hint: 'Use a client that supports elicitation (protocol 2026-07-28), or have the operator leave this class out of SOCIALGATE_MCP_CONFIRM.' },
  ConfirmationDeclined: { status: 403, on: 'outside', when: '/mcp: the human declined (or cancelled) the confirmation the tool asked for; nothing was sent to the platform.' },
  ResourceNotFound: { status: 404, on: 'outside', when: '/mcp: resources/read names no resource of this session.', hint: 'resources/list and resources/templates/list name what can be read.' },
} as const satisfies Record<string, ServiceErrorRow>;

export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

/** Options a raise site may add: never a status or an exc_type, which the row decides. */
export type RaiseOptions = Omit<HttpErrorOptions, 'excType'>;

/** The one way the service raises an error of its own: by code, with the row's status and hint unless the site knows better. */
export function serviceError(code: ServiceErrorCode, detail: string, options: RaiseOptions = {}): HttpError {
  const row: ServiceErrorRow = SERVICE_ERRORS[code];
  return new HttpError(row.status, detail, { hint: row.hint, retryAfter: row.retryAfter, ...options, excType: code });
}

/** A 422 that names every offending parameter. */
export function invalidParams(errors: readonly ParamProblem[]): HttpError {
  const detail = 'Invalid parameters: ' + errors.map((e) => `${e.param} (${e.problem})`).join('; ');
  return serviceError('ValidationError', detail, { errors });
}

/** The codes a route can answer, for its documented responses. */
export function serviceCodesFor(route: RouteSpec): ServiceErrorCode[] {
  return codes().filter((code) => {
    const on: ErrorScope = SERVICE_ERRORS[code].on;
    return on !== 'outside' && on(route);
  });
}

export const codes = (): ServiceErrorCode[] => Object.keys(SERVICE_ERRORS) as ServiceErrorCode[];
