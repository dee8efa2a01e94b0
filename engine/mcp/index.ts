// The Model Context Protocol as the manifest's fourth consumer: tools from the route records,
// served at /mcp through each route's own pipeline.
import type { Middleware } from 'koa';
import type { KeyGrant, Manifest, RouteSpec, Services } from '../types.js';
import type { RouteSteps } from '../pipeline/handler.js';
import { buildTools } from './tools.js';


export const MCP_PATH = '/mcp';

/**
 * The /mcp middleware, or none when the setting turns MCP off. The tools are built at boot (a bad
 * one stops the start); the SDK (some 10 MB once imported) is loaded by the first /mcp request.
 */
export function mcpFor(manifest: Manifest, steps: (route: RouteSpec) => RouteSteps, services: Services): Middleware | undefined {
  const { config } = services;
  if (config.mcpTools === 'none') return undefined;
  const tools = buildTools(manifest);
  let endpoint: Promise<Middleware> | undefined;
  const load = async (): Promise<Middleware> => {
    const { allowedHosts, mcpEndpoint } = await import('./http.js');
    const [{ mcpServers }, { LogLevels }, { watchStates }] = await Promise.all([import('./server.js'), import('./logging.js'), import('./resources.js')]);
    const byRoute = new Map(tools.map((entry) => [entry.route.key, entry]));
    const servers = mcpServers(config.mcpTools, tools, {
      sessions: services.sessions, log: services.log, errors: manifest.errors, steps, byRoute,
      confirm: new Set(config.mcpConfirm), audit: services.audit, levels: new LogLevels(),
    });
    const endpoint = mcpEndpoint(servers, allowedHosts(config.host, config.mcpAllowedHosts), keyNameOf(), services.log);
    watchStates(services.sessions, (uri) => endpoint.notify.resourceUpdated(uri));
    return endpoint.middleware;
  };
  // A failed load (a broken install) is tried again by the next request, not remembered.
  const loaded = () => (endpoint ??= load().catch((error: unknown) => ((endpoint = undefined), Promise.reject(error))));
  return async (ctx, next) => (await loaded())(ctx, next);
}

/**
 * The audit's name for the key a request came with: the grant the API-key step left on the request
 * (engine/auth.ts), else `none` (a service with no keys at all).
 */
function keyNameOf(): (state: Record<string, unknown>) => string {
  return (state) => (state.key as KeyGrant | undefined)?.name ?? 'none';
}
