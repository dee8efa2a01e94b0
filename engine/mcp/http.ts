// /mcp on the service's own port: Streamable HTTP through the SDK's handler, behind the same
// request context (request id, API key, error body) as every route, and a Host and Origin check
// against DNS rebinding. Koa writes the SDK's answer like any other body.
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { toWebRequest } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
  type AuthInfo,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { stampRequestId } from '../request-context.js';
import { serviceError } from '../service-errors.js';
import { sessionRef } from '../session-record.js';
import type { KeyGrant, Logger } from '../types.js';
import type { Caller } from './call.js';
import { LegacySessions, ringEventStore } from './legacy.js';
import { eventsRefOf } from './resources.js';
import type { ServerFor } from './server.js';
import type { ResourceUpdates } from './updates.js';

/** Host names /mcp answers to: the loopback names, the listening host when it names one, and the configured. */
export function allowedHosts(host: string, configured: readonly string[]): string[] {
  const listening = host && host !== '0.0.0.0' && host !== '::' ? [host.includes(':') && !host.startsWith('[') ? `[${host}]` : host] : [];
  return [...new Set([...localhostAllowedHostnames(), ...listening, ...configured])];
}

export interface Endpoint {
  readonly middleware: Middleware;
  /** Publishes resource updates to the open subscription streams (protocol 2026-07-28). */
  readonly notify: ServerNotifier;
  /** The 2025 sessions of this instance. */
  readonly sessions: LegacySessions;
}

export function mcpEndpoint(
  serverFor: ServerFor,
  hosts: readonly string[],
  keyName: (state: Record<string, unknown>) => string,
  log: Logger,
  updates: ResourceUpdates,
): Endpoint {
  const allowed = [...hosts];
  // The caller rides the SDK's pass-through `authInfo` to the factory: the session is the
  // request's identity, read by the same rule as every route's (the X-Session-ID header).
  const handler = createMcpHandler((context) => serverFor({ ...(context.authInfo?.extra as { caller: Caller } | undefined)!.caller, era: context.era }), {
    onerror: (error) => log.warn('mcp request failed', { error: error.name }),
    // The 2025 protocol is served below (serveLegacy): streams with a priming event and `retry`.
    legacy: 'reject',
  });
  const sessions = new LegacySessions(ringEventStore());
  const middleware: Middleware = async (ctx) => {
    ctx.state.route = 'MCP /mcp';
    checkHost(ctx.get('host'), allowed);
    checkOrigin(ctx.get('origin') || undefined, allowed);
    const controller = new AbortController();
    ctx.res.once('close', () => controller.abort());
    const request = await toWebRequest(ctx.req, undefined, { signal: controller.signal });
    const key = ctx.state.key as KeyGrant | undefined;
    const caller: Caller = {
      sessionId: ctx.get('x-session-id').trim() || undefined,
      requestId: ctx.state.requestId as string,
      baseUrl: `${ctx.protocol}://${ctx.host}`,
      key,
      keyName: keyName(ctx.state),
    };
    const authInfo: AuthInfo = { token: '', clientId: 'socialgate', scopes: [], extra: { caller } };
    const legacy = await isLegacyRequest(request);
    if (!legacy && caller.sessionId) await holdListenedEvents(request, sessionRef(caller.sessionId), updates);
    const response = legacy
      ? await sessions.serve(() => serverFor({ ...caller, era: 'legacy' }), request, authInfo, caller.keyName)
      : await handler.fetch(request, { authInfo });
    ctx.body = response.body ? Readable.fromWeb(response.body as import('node:stream/web').ReadableStream) : null;
    // After the body: Koa turns an empty body's status into 204, and a 2025 client opens its
    // session's stream only on the 202 that accepts its `initialized`.
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      ctx.set(name, value);
    });
    // A stream that may stay quiet (a 2025 session's own stream) is answered now, not at its first event.
    if (request.method === 'GET' && response.ok && ctx.response.type === 'text/event-stream') {
      stampRequestId(ctx);
      ctx.flushHeaders();
    }
  };
  return { middleware, notify: handler.notify, sessions };
}

/**
 * A 2026-07-28 listen stream that subscribes to its own session's events holds that session's log in the
 * one events loop while the stream is open (the SDK's router tells no one which URIs a stream names).
 */
async function holdListenedEvents(request: Request, own: string, updates: ResourceUpdates): Promise<void> {
  if (request.method !== 'POST' || !updates.hearsEvents) return;
  const body = (await request
    .clone()
    .json()
    .catch(() => undefined)) as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined;
  if (body?.method !== 'subscriptions/listen') return;
  const uris = body.params?.notifications?.resourceSubscriptions;
  const listened = Array.isArray(uris) && uris.some((uri) => eventsRefOf(String(uri)) === own);
  const releases = listened ? [updates.hold(own)] : [];
  if (releases.length)
    request.signal.addEventListener(
      'abort',
      () => {
        for (const release of releases) release();
      },
      { once: true },
    );
}

function checkHost(host: string, allowed: string[]): void {
  const result = validateHostHeader(host, allowed);
  if (!result.ok) throw serviceError('HostNotAllowed', `Host not allowed for /mcp: ${result.message}`);
}

function checkOrigin(origin: string | undefined, allowed: string[]): void {
  const result = validateOriginHeader(origin, allowed);
  if (!result.ok) throw serviceError('OriginNotAllowed', `Origin not allowed for /mcp: ${result.message}`);
}
