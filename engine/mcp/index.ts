// The Model Context Protocol as the manifest's fourth consumer: tools from the route records,
// served at /mcp through each route's own pipeline.
import type { Middleware } from 'koa';
import { eventLogOf, type KeyGrant, type Manifest, type RouteSpec, type Services } from '../types.js';
import type { RouteSteps } from '../pipeline/handler.js';
import { buildTools } from './tools.js';

export const MCP_PATH = '/mcp';

/**
 * The /mcp middleware, or none when the setting turns MCP off. The tools are built at boot (a bad
 * one stops the start); the SDK (some 10 MB once imported) is loaded by the first /mcp request.
 */
export function mcpFor(manifest: Manifest, steps: (route: RouteSpec) => RouteSteps, services: Services): McpEndpoint | undefined {
  const { config } = services;
  if (config.mcpTools === 'none') return undefined;
  const tools = buildTools(manifest);
  let endpoint: Promise<Middleware> | undefined;
  let closing: (() => void) | undefined;
  const load = async (): Promise<Middleware> => {
    const { allowedHosts, mcpEndpoint } = await import('./http.js');
    const [{ mcpServers }, { LogLevels }, { resourceCatalog, sessionUri, urisChanging, watchStates }, { ResourceUpdates }] = await Promise.all([
      import('./server.js'),
      import('./logging.js'),
      import('./resources.js'),
      import('./updates.js'),
    ]);
    const byRoute = new Map(tools.map((entry) => [entry.route.key, entry]));
    const events = () => eventLogOf(services.work);
    const updates = new ResourceUpdates(events, (ref) => sessionUri(ref, 'events'));
    const catalog = resourceCatalog(byRoute, events());
    const servers = mcpServers(config.mcpTools, tools, {
      sessions: services.sessions,
      log: services.log,
      errors: manifest.errors,
      steps,
      byRoute,
      catalog,
      events,
      updates,
      confirm: new Set(config.mcpConfirm),
      audit: services.audit,
      levels: new LogLevels(),
      wrote: (ref) => {
        for (const uri of urisChanging(catalog, ref, 'writes')) updates.publish(uri);
      },
    });
    const endpoint = mcpEndpoint(servers, allowedHosts(config.host, config.mcpAllowedHosts), keyNameOf(), services.log, updates);
    updates.reach((uri) => endpoint.notify.resourceUpdated(uri));
    const unwatch = watchStates(services.sessions, catalog, (uri) => updates.publish(uri));
    closing = () => {
      unwatch();
      endpoint.sessions.closeAll();
      updates.stop();
    };
    return endpoint.middleware;
  };
  // A failed load (a broken install) is tried again by the next request, not remembered.
  const loaded = () => (endpoint ??= load().catch((error: unknown) => ((endpoint = undefined), Promise.reject(error))));
  return { middleware: async (ctx, next) => (await loaded())(ctx, next), close: async () => closing?.() };
}

export interface McpEndpoint {
  readonly middleware: Middleware;
  /** Closes the 2025 sessions and stops hearing events for subscribers. */
  close(): Promise<void>;
}

/**
 * The audit's name for the key a request came with: the grant the API-key step left on the request
 * (engine/auth.ts), else `none` (a service with no keys at all).
 */
function keyNameOf(): (state: Record<string, unknown>) => string {
  return (state) => (state.key as KeyGrant | undefined)?.name ?? 'none';
}
