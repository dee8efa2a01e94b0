// /mcp on the service's own port: Streamable HTTP through the SDK's handler, behind the same
// request context (request id, API key, error body) as every route, and a Host and Origin check
// against DNS rebinding. Koa writes the SDK's answer like any other body.
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { toWebRequest } from '@modelcontextprotocol/node';
import {
  createMcpHandler, isLegacyRequest, localhostAllowedHostnames, validateHostHeader, validateOriginHeader, type AuthInfo, type ServerNotifier,
} from '@modelcontextprotocol/server';
import { serviceError } from '../service-errors.js';
import type { KeyGrant, Logger } from '../types.js';
import type { Caller } from './call.js';
import { ringEventStore, serveLegacy } from './legacy.js';
import type { ServerFor } from './server.js';

/** Host names /mcp answers to: the loopback names, the listening host when it names one, and the configured. */
export function allowedHosts(host: string, configured: readonly string[]): string[] {
  const listening = host && host !== '0.0.0.0' && host !== '::' ? [host.includes(':') && !host.startsWith('[') ? `[${host}]` : host] : [];
  return [...new Set([...localhostAllowedHostnames(), ...listening, ...configured])];
}

export interface Endpoint {
  readonly middleware: Middleware;
  /** Publishes resource updates to the open subscription streams (protocol 2026-07-28). */
  readonly notify: ServerNotifier;
}

export function mcpEndpoint(serverFor: ServerFor, hosts: readonly string[], keyName: (state: Record<string, unknown>) => string, log: Logger): Endpoint {
  const allowed = [...hosts];
  // The caller rides the SDK's pass-through `authInfo` to the factory: the session is the
  // request's identity, read by the same rule as every route's (the X-Session-ID header); the
  // middleware below passes authInfo on every request.
  const handler = createMcpHandler((context) => serverFor({ ...(context.authInfo!.extra as { caller: Caller }).caller, era: context.era }), {
    onerror: (error) => log.warn('mcp request failed', { error: error.name }),
    // The 2025 protocol is served below (serveLegacy): streams with a priming event and `retry`.
    legacy: 'reject',
  });
  const events = ringEventStore();
  const middleware: Middleware = async (ctx) => {
    ctx.state.route = 'MCP /mcp';
    checkHost(ctx.get('host'), allowed);
    checkOrigin(ctx.get('origin') || undefined, allowed);
    const controller = new AbortController();
    ctx.res.once('close', () => controller.abort());
    const request = await toWebRequest(ctx.req, undefined, { signal: controller.signal });
    const key = ctx.state.key as KeyGrant | undefined;
    const caller: Caller = {
      sessionId: ctx.get('x-session-id').trim() || undefined, requestId: ctx.state.requestId as string,
      baseUrl: `${ctx.protocol}://${ctx.host}`, key, keyName: keyName(ctx.state),
    };
    const authInfo: AuthInfo = { token: '', clientId: 'socialgate', scopes: [], extra: { caller } };
    const response = (await isLegacyRequest(request))
      ? await serveLegacy(serverFor({ ...caller, era: 'legacy' }), request, authInfo, events)
      : await handler.fetch(request, { authInfo });
    ctx.status = response.status;
    for (const [name, value] of response.headers) ctx.set(name, value);
    ctx.body = response.body ? Readable.fromWeb(response.body as import('node:stream/web').ReadableStream) : null;
  };
  return { middleware, notify: handler.notify };
}

function checkHost(host: string, allowed: string[]): void {
  const result = validateHostHeader(host, allowed);
  if (!result.ok) throw serviceError('HostNotAllowed', `Host not allowed for /mcp: ${result.message}`);
}

function checkOrigin(origin: string | undefined, allowed: string[]): void {
  const result = validateOriginHeader(origin, allowed);
  if (!result.ok) throw serviceError('OriginNotAllowed', `Origin not allowed for /mcp: ${result.message}`);
}
