// One MCP server per served unit (an HTTP request, a stdio connection), answering from listings
// built once at boot: tools (each call guarded, run through its route's pipeline and audited),
// resources, prompts, completions and the log level.
import { LOG_LEVEL_META_KEY, Server, type CallToolResult, type InputRequiredResult, type LoggingLevel, type ServerContext } from '@modelcontextprotocol/server';
import type { HttpError } from '../http-error.js';
import { invalidParams, serviceError } from '../service-errors.js';
import { SERVICE_VERSION } from '../openapi.js';
import type { ToolSet } from '../types.js';
import { toolError, type Caller } from './call.js';
import { complete } from './complete.js';
import { guardedCall, notify, type GuardDeps } from './guard.js';
import { getPrompt, listPrompts } from './prompts.js';
import { eventsRefOf, listResources, notFound, readResource, resourceTemplates, subscribable, type ResourceDeps } from './resources.js';
import { listingFor, searchIndex, type Listing } from './sets.js';
import type { ToolEntry } from './tools.js';
import type { ResourceUpdates } from './updates.js';

export type ServerFor = (caller: Caller) => Server;

export interface ServerDeps extends GuardDeps, ResourceDeps {
  readonly updates: ResourceUpdates;
}

const CAPABILITIES = { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} };

export function mcpServers(set: ToolSet, entries: readonly ToolEntry[], deps: ServerDeps): ServerFor {
  const listing = listingFor(set, entries);
  const search = searchIndex(entries);
  return (caller) => {
    const server = new Server({ name: 'socialgate', version: SERVICE_VERSION }, { capabilities: CAPABILITIES });
    const one = (ctx: ServerContext): Caller => {
      // A 2025 session's server outlives its first request: each request brings its own caller (request id, key, session).
      const current = (ctx.http?.authInfo?.extra as { caller?: Caller } | undefined)?.caller ?? caller;
      return { ...current, era: caller.era, signal: ctx.mcpReq.signal, logLevel: envelopeLevel(ctx) ?? current.logLevel, meta: ctx.mcpReq._meta };
    };
    const subscriptions = new Subscriptions(server, deps.updates);
    server.setRequestHandler('tools/list', () => ({ tools: [...listing.tools] }));
    server.setRequestHandler('tools/call', (request, ctx) => callNamed(server, listing, search, request.params, one(ctx), ctx, deps));
    server.setRequestHandler('resources/list', (_request, ctx) => ({ resources: listResources(one(ctx), deps.catalog) }));
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: resourceTemplates(deps.catalog) }));
    server.setRequestHandler('resources/read', (request, ctx) => readResource(request.params.uri, one(ctx), deps));
    const subscription = (add: boolean) => (request: { params: { uri: string } }, ctx: ServerContext) => {
      const { uri } = request.params;
      if (!subscribable(uri, one(ctx), deps.catalog)) throw notFound(uri, deps, one(ctx));
      if (add) subscriptions.add(uri);
      else subscriptions.remove(uri);
      return {};
    };
    server.setRequestHandler('resources/subscribe', subscription(true));
    server.setRequestHandler('resources/unsubscribe', subscription(false));
    server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts() }));
    server.setRequestHandler('prompts/get', (request) => getPrompt(request.params.name, request.params.arguments ?? {}));
    server.setRequestHandler('completion/complete', (request, ctx) => complete(request.params, one(ctx), deps));
    server.setRequestHandler('logging/setLevel', async (request, ctx) => {
      deps.levels.set(one(ctx), request.params.level);
      await notify(ctx, deps.levels, one(ctx), 'info', { level: request.params.level, detail: 'log level set' });
      return {};
    });
    return server;
  };
}

async function callNamed(
  server: Server,
  listing: Listing,
  search: ReturnType<typeof searchIndex>,
  params: { name: string; arguments?: Record<string, unknown> },
  caller: Caller,
  ctx: ServerContext,
  deps: ServerDeps,
): Promise<CallToolResult | InputRequiredResult> {
  const { name, arguments: args = {} } = params;
  const served = listing.byName.get(name);
  if (!served) return toolError(unknownTool(name), deps.errors, caller.requestId);
  if (served.kind === 'route') return project(server, await guardedCall(server, served.entry, args, caller, ctx, deps), served.entry.tool.outputSchema);
  if (served.kind === 'find') return found(search(String(args.words ?? ''), Math.min(25, Math.max(1, Number(args.limit) || 8))));
  const entry = listing.entries.get(String(args.name ?? ''));
  if (!entry) return toolError(unknownTool(String(args.name ?? '')), deps.errors, caller.requestId);
  if (served.kind === 'describe') return found({ tool: entry.tool });
  const given = args.arguments ?? {};
  if (typeof given !== 'object' || Array.isArray(given))
    return toolError(invalidParams([{ param: 'arguments', problem: "must be an object of the route's arguments" }]), deps.errors, caller.requestId);
  return guardedCall(server, entry, given as Record<string, unknown>, caller, ctx, deps, `call_route:${entry.name}`);
}

/** Answers go through the SDK's codec for the client's protocol revision; errors and questions go as they are. */
function project(server: Server, result: CallToolResult | InputRequiredResult, schema: unknown): CallToolResult | InputRequiredResult {
  if (!('content' in result) || result.isError) return result;
  return server.projectCallToolResult(result as CallToolResult, schema as Record<string, unknown> | undefined);
}

/** The log level a 2026-07-28 request carries in its envelope, if any. */
function envelopeLevel(ctx: ServerContext): LoggingLevel | undefined {
  const level = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
  return typeof level === 'string' ? (level as LoggingLevel) : undefined;
}

function found(content: object): CallToolResult {
  const structured = Array.isArray(content) ? { routes: content } : (content as Record<string, unknown>);
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * A 2025 connection's subscriptions: updates of the URIs it subscribed to are sent by its own server
 * (on its session's stream), and a subscription to a session's events holds that session's log in
 * the one events loop. All are released when the server closes (the session ends, or a stateless
 * request's answer ends: it had no stream to hear them on).
 */
class Subscriptions {
  private readonly held = new Map<string, () => void>();
  private unreach?: () => void;

  constructor(
    private readonly server: Server,
    private readonly updates: ResourceUpdates,
  ) {
    const closed = server.onclose;
    server.onclose = () => {
      closed?.();
      this.clear();
    };
  }

  add(uri: string): void {
    if (this.held.has(uri)) return;
    const ref = eventsRefOf(uri);
    this.held.set(uri, ref ? this.updates.hold(ref) : () => undefined);
    this.unreach ??= this.updates.reach((updated) => {
      if (this.held.has(updated)) void this.server.sendResourceUpdated({ uri: updated }).catch(() => undefined);
    });
  }

  remove(uri: string): void {
    this.held.get(uri)?.();
    this.held.delete(uri);
  }

  private clear(): void {
    for (const release of this.held.values()) release();
    this.held.clear();
    this.unreach?.();
    this.unreach = undefined;
  }
}

const unknownTool = (name: string): HttpError => serviceError('UnknownTool', `No tool named "${name}"`);

export type { Listing };
