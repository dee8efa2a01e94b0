// MCP resources: what an agent may read about the session it acts for (its state, its account,
// its jobs, its watch) and about the service (pools), plus any user's profile by a URI template.
// A resource backed by a route is read through that route's tool, so the same pipeline (session,
// validation, lane, governor) answers it. URIs carry the session's ref, never its ID: a
// subscription names one session's resource and is notified when that session changes.
import { ProtocolError, ProtocolErrorCode, type ReadResourceResult, type Resource, type ResourceTemplateType } from '@modelcontextprotocol/server';
import { mapError } from '../errors.js';
import { serviceError } from '../service-errors.js';
import { sessionRef } from '../session-record.js';
import type { SessionRecord, SessionService } from '../types.js';
import { callTool, outcomeOf, type CallDeps, type Caller } from './call.js';
import type { ToolEntry } from './tools.js';

const SCHEME = 'socialgate://';

/** One resource of a session: what it is, and the route that answers it (none: the session record itself). */
interface SessionResource {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly route?: string;
  /** Its changes are notified to subscribers (state changes: the session service tells this instance). */
  readonly changes: boolean;
}

const OF_SESSION: readonly SessionResource[] = [
  { name: 'state', title: 'Session state', description: 'The session\'s account, state (active, challenge, throttled, logged out) and, when throttled, until when. Subscribe to hear of changes.', changes: true },
  { name: 'account', title: 'Account profile', description: 'The account\'s own profile, as GET /account answers it.', route: 'GET /account', changes: false },
  { name: 'jobs', title: 'Jobs', description: 'The session\'s background jobs (collecting whole lists), as GET /jobs answers them.', route: 'GET /jobs', changes: false },
  { name: 'watch', title: 'Watch', description: 'Whether the session is watched for events, and how, as GET /events/watch answers it.', route: 'GET /events/watch', changes: false },
];
const POOLS = { uri: `${SCHEME}pools`, name: 'pools', title: 'Pools', description: 'The session pools and the health of their members, as GET /pools answers it.', route: 'GET /pools' };
const USER_TEMPLATE = `${SCHEME}users/{username}`;

export const stateUri = (ref: string): string => `${SCHEME}sessions/${ref}/state`;
const sessionUri = (ref: string, name: string): string => `${SCHEME}sessions/${ref}/${name}`;

export interface ResourceDeps extends CallDeps {
  readonly byRoute: ReadonlyMap<string, ToolEntry>;
}

/** The caller's own resources (its session's, when it has one) and the service's. */
export function listResources(caller: Caller): Resource[] {
  const ref = caller.sessionId ? sessionRef(caller.sessionId) : undefined;
  const own = ref ? OF_SESSION.map((one) => ({ uri: sessionUri(ref, one.name), name: one.name, title: one.title, description: one.description, mimeType: 'application/json' })) : [];
  return [...own, { uri: POOLS.uri, name: POOLS.name, title: POOLS.title, description: POOLS.description, mimeType: 'application/json' }];
}

export function resourceTemplates(): ResourceTemplateType[] {
  return [
    { uriTemplate: `${SCHEME}sessions/{ref}/{resource}`, name: 'session', title: 'A resource of your session', description: `The session's ${OF_SESSION.map((one) => one.name).join(', ')}; {ref} is your session's ref (resources/list names them).`, mimeType: 'application/json' },
    { uriTemplate: USER_TEMPLATE, name: 'user', title: 'A user\'s profile', description: 'The profile of any user by username, as GET /user answers it (completion suggests usernames).', mimeType: 'application/json' },
  ];
}

/** Reads one resource for the caller; a URI that is not the caller's (another session's) is not found. */
export async function readResource(uri: string, caller: Caller, deps: ResourceDeps): Promise<ReadResourceResult> {
  const user = uri.startsWith(`${SCHEME}users/`) ? decodeURIComponent(uri.slice(`${SCHEME}users/`.length)) : undefined;
  if (user) return viaRoute(uri, 'GET /user', { username: user }, caller, deps);
  if (uri === POOLS.uri) return viaRoute(uri, POOLS.route, {}, caller, deps);
  const one = ownResource(uri, caller);
  if (!one) throw notFound(uri, deps, caller);
  if (one.route) return viaRoute(uri, one.route, {}, caller, deps);
  const record = (caller.sessionId && (deps.sessions.peek(caller.sessionId) ?? (await deps.sessions.find(caller.sessionId)))) || undefined;
  if (!record) throw notFound(uri, deps, caller);
  return json(uri, stateOf(record));
}

/** Whether a client may subscribe to the URI: a resource of its own session that changes. */
export function subscribable(uri: string, caller: Caller): boolean {
  return ownResource(uri, caller)?.changes === true;
}

function ownResource(uri: string, caller: Caller): SessionResource | undefined {
  if (!caller.sessionId) return undefined;
  const prefix = `${SCHEME}sessions/${sessionRef(caller.sessionId)}/`;
  return uri.startsWith(prefix) ? OF_SESSION.find((one) => one.name === uri.slice(prefix.length)) : undefined;
}

function stateOf(record: SessionRecord): Record<string, unknown> {
  return {
    ref: sessionRef(record.id), account: record.account, state: record.state,
    throttled_until: record.throttledUntil ? new Date(record.throttledUntil).toISOString() : null,
    last_used_at: new Date(record.lastUsedAt).toISOString(),
  };
}

async function viaRoute(uri: string, key: string, args: Record<string, unknown>, caller: Caller, deps: ResourceDeps): Promise<ReadResourceResult> {
  const entry = deps.byRoute.get(key);
  if (!entry) throw notFound(uri, deps, caller);
  const result = await callTool(entry, args, caller, deps);
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '{}';
  if (result.isError) {
    const { outcome, status } = outcomeOf(result);
    throw new ProtocolError(status === 404 || status === 422 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, `${outcome}: could not read ${uri}`, JSON.parse(text));
  }
  return { contents: [{ uri, mimeType: 'application/json', text }] };
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] };
}

/** The protocol's answer for an unknown resource (invalid params), carrying the service's error body. */
export function notFound(uri: string, deps: CallDeps, caller: Caller): ProtocolError {
  const mapped = mapError(serviceError('ResourceNotFound', `No resource ${uri} for this session`), deps.errors);
  return new ProtocolError(ProtocolErrorCode.InvalidParams, mapped.body.detail, { ...mapped.body, status: mapped.status, request_id: caller.requestId });
}

/** Session state changes as resource updates: the state resource of the session that changed. */
export function watchStates(sessions: SessionService, updated: (uri: string) => void): () => void {
  return sessions.subscribe((id, change) => {
    if (change) updated(stateUri(sessionRef(id)));
  });
}
