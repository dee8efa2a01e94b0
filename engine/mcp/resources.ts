// MCP resources: what an agent may read about the session it acts for (its state, its account, its
// recent events, its jobs, its watch, and the policy and scheduled writes where those routes exist)
// and about the service (pools), plus any user's profile by a URI template.
// A resource backed by a route is read through that route's tool, so the same pipeline (session,
// validation, lane, governor) answers it. URIs carry the session's ref, never its ID: a
// subscription names one session's resource and is notified when that session changes.
import { ProtocolError, ProtocolErrorCode, type ReadResourceResult, type Resource, type ResourceTemplateType } from '@modelcontextprotocol/server';
import { mapError } from '../errors.js';
import { serviceError } from '../service-errors.js';
import { sessionRef } from '../session-record.js';
import type { EventLog, SessionRecord, SessionService } from '../types.js';
import { callTool, outcomeOf, type CallDeps, type Caller } from './call.js';
import type { ToolEntry } from './tools.js';

const SCHEME = 'socialgate://';
/** Events the events resource shows: the newest of the session's log (its description says 50). */
export const RECENT = 50;

/** What makes a resource change, so a subscriber hears of it: the session's state, its events, or the writes it makes. */
export type Changes = 'state' | 'events' | 'writes';

/** One resource of a session: what it is, and the route that answers it (none: read from the session or its events). */
interface SessionResource {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly route?: string;
  readonly changes?: Changes;
}

/**
 * A session's resources. One backed by a route exists only where the manifest has that route, so a
 * feature's resource (the policy's budgets, the scheduled writes) appears with the feature's route.
 */
const OF_SESSION: readonly SessionResource[] = [
  {
    name: 'state',
    title: 'Session state',
    description: "The session's account, state (active, challenge, throttled, logged out) and, when throttled, until when. Subscribe to hear of changes.",
    changes: 'state',
  },
  { name: 'account', title: 'Account profile', description: "The account's own profile, as GET /account answers it.", route: 'GET /account' },
  {
    name: 'events',
    title: 'Recent events',
    description: `The session's newest events (at most 50), oldest first, as the events outbox keeps them. Subscribe to hear of new ones.`,
    changes: 'events',
  },
  { name: 'jobs', title: 'Jobs', description: "The session's background jobs (collecting whole lists), as GET /jobs answers them.", route: 'GET /jobs' },
  {
    name: 'watch',
    title: 'Watch',
    description: 'Whether the session is watched for events, and how, as GET /events/watch answers it.',
    route: 'GET /events/watch',
  },
  {
    name: 'policy',
    title: 'Policy and budgets',
    description: 'The account-safety policy and what is left of each budget, as GET /policy answers it. Subscribe to hear of writes that spend it.',
    route: 'GET /policy',
    changes: 'writes',
  },
  {
    name: 'scheduled_writes',
    title: 'Scheduled writes',
    description: 'Writes waiting for their time, as GET /writes/scheduled answers them. Subscribe to hear of writes.',
    route: 'GET /writes/scheduled',
    changes: 'writes',
  },
];
const POOLS = {
  uri: `${SCHEME}pools`,
  name: 'pools',
  title: 'Pools',
  description: 'The session pools and the health of their members, as GET /pools answers it.',
  route: 'GET /pools',
};
const USER_TEMPLATE = `${SCHEME}users/{username}`;

export const stateUri = (ref: string): string => `${SCHEME}sessions/${ref}/state`;
export const sessionUri = (ref: string, name: string): string => `${SCHEME}sessions/${ref}/${name}`;

/** The resources this service has, decided once: those whose route the manifest has, and events where there is a log. */
export interface ResourceCatalog {
  readonly ofSession: readonly SessionResource[];
  readonly pools: boolean;
}

export function resourceCatalog(byRoute: ReadonlyMap<string, unknown>, events: EventLog | undefined): ResourceCatalog {
  const ofSession = OF_SESSION.filter((one) => (one.route ? byRoute.has(one.route) : one.changes !== 'events' || events !== undefined));
  return { ofSession, pools: byRoute.has(POOLS.route) };
}

/** The URIs of a session's resources that change with `what` (what to notify when it happens). */
export function urisChanging(catalog: ResourceCatalog, ref: string, what: Changes): string[] {
  return catalog.ofSession.filter((one) => one.changes === what).map((one) => sessionUri(ref, one.name));
}

export interface ResourceDeps extends CallDeps {
  readonly byRoute: ReadonlyMap<string, ToolEntry>;
  readonly catalog: ResourceCatalog;
  readonly events: () => EventLog | undefined;
}

/** The caller's own resources (its session's, when it has one) and the service's. */
export function listResources(caller: Caller, catalog: ResourceCatalog): Resource[] {
  const ref = caller.sessionId ? sessionRef(caller.sessionId) : undefined;
  const own = ref
    ? catalog.ofSession.map((one) => ({
        uri: sessionUri(ref, one.name),
        name: one.name,
        title: one.title,
        description: one.description,
        mimeType: 'application/json',
      }))
    : [];
  const pools = catalog.pools ? [{ uri: POOLS.uri, name: POOLS.name, title: POOLS.title, description: POOLS.description, mimeType: 'application/json' }] : [];
  return [...own, ...pools];
}

export function resourceTemplates(catalog: ResourceCatalog): ResourceTemplateType[] {
  return [
    {
      uriTemplate: `${SCHEME}sessions/{ref}/{resource}`,
      name: 'session',
      title: 'A resource of your session',
      description: `The session's ${catalog.ofSession.map((one) => one.name).join(', ')}; {ref} is your session's ref (resources/list names them).`,
      mimeType: 'application/json',
    },
    {
      uriTemplate: USER_TEMPLATE,
      name: 'user',
      title: "A user's profile",
      description: 'The profile of any user by username, as GET /user answers it (completion suggests usernames).',
      mimeType: 'application/json',
    },
  ];
}

/** Reads one resource for the caller; a URI that is not the caller's (another session's) is not found. */
export async function readResource(uri: string, caller: Caller, deps: ResourceDeps): Promise<ReadResourceResult> {
  const user = uri.startsWith(`${SCHEME}users/`) ? decodeURIComponent(uri.slice(`${SCHEME}users/`.length)) : undefined;
  if (user) return viaRoute(uri, 'GET /user', { username: user }, caller, deps);
  if (uri === POOLS.uri && deps.catalog.pools) return viaRoute(uri, POOLS.route, {}, caller, deps);
  const one = ownResource(uri, caller, deps.catalog);
  if (!one) throw notFound(uri, deps, caller);
  if (one.route) return viaRoute(uri, one.route, {}, caller, deps);
  const record = (caller.sessionId && (deps.sessions.peek(caller.sessionId) ?? (await deps.sessions.find(caller.sessionId)))) || undefined;
  if (!record) throw notFound(uri, deps, caller);
  if (one.changes === 'events') return json(uri, await recentEvents(deps.events(), sessionRef(record.id)));
  return json(uri, stateOf(record));
}

/** The session's newest events from the outbox, oldest first. */
async function recentEvents(log: EventLog | undefined, ref: string): Promise<Record<string, unknown>> {
  if (!log) return { events: [] };
  const last = await log.last(ref);
  const entries = await log.read(ref, Math.max(0, last - RECENT), RECENT);
  return {
    events: entries.map(({ seq, value }) => ({ seq, id: value.id, type: value.type, timestamp: new Date(value.timestamp).toISOString(), data: value.data })),
  };
}

/** What a subscription to the URI listens to (a resource of the caller's own session that changes), or undefined. */
export function subscribable(uri: string, caller: Caller, catalog: ResourceCatalog): Changes | undefined {
  return ownResource(uri, caller, catalog)?.changes;
}

function ownResource(uri: string, caller: Caller, catalog: ResourceCatalog): SessionResource | undefined {
  if (!caller.sessionId) return undefined;
  const prefix = `${SCHEME}sessions/${sessionRef(caller.sessionId)}/`;
  return uri.startsWith(prefix) ? catalog.ofSession.find((one) => one.name === uri.slice(prefix.length)) : undefined;
}

/** The session ref a URI of a session's events names, if it names one. */
export function eventsRefOf(uri: string): string | undefined {
  const match = /^socialgate:\/\/sessions\/([^/]+)\/events$/.exec(uri);
  return match?.[1];
}

function stateOf(record: SessionRecord): Record<string, unknown> {
  return {
    ref: sessionRef(record.id),
    account: record.account,
    state: record.state,
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
    throw new ProtocolError(
      status === 404 || status === 422 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
      `${outcome}: could not read ${uri}`,
      JSON.parse(text),
    );
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
export function watchStates(sessions: SessionService, catalog: ResourceCatalog, updated: (uri: string) => void): () => void {
  return sessions.subscribe((id, change) => {
    if (change) for (const uri of urisChanging(catalog, sessionRef(id), 'state')) updated(uri);
  });
}
