// The Model Context Protocol as the manifest's fourth consumer: tools from the route records,
// served at /mcp through each route's own pipeline.
import type { Middleware } from 'koa';
import type { Manifest, RouteSpec, Services } from '../types.js';
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
    const [{ allowedHosts, mcpEndpoint }, { mcpServers }] = await Promise.all([import('./http.js'), import('./server.js')]);
    const servers = mcpServers(config.mcpTools, tools, { sessions: services.sessions, log: services.log, errors: manifest.errors, steps });
    return mcpEndpoint(servers, allowedHosts(config.host, config.mcpAllowedHosts), services.log);
  };
  // A failed load (a broken install) is tried again by the next request, not remembered.
  const loaded = () => (endpoint ??= load().catch((error: unknown) => ((endpoint = undefined), Promise.reject(error))));
  return async (ctx, next) => (await loaded())(ctx, next);
}
