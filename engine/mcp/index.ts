// The Model Context Protocol as the manifest's fourth consumer: tools from the route records,
// served at /mcp through each route's own pipeline.
import type { Middleware } from 'koa';
import type { Manifest, RouteSpec, Services } from '../types.js';
import type { RouteSteps } from './call.js';
import { allowedHosts, mcpEndpoint } from './http.js';
import { mcpServers } from './server.js';
import { buildTools } from './tools.js';

export { MCP_PATH } from './http.js';
export { TOOL_SETS, type ToolSet } from './sets.js';

/** The /mcp middleware, or none when the setting turns MCP off. */
export function mcpFor(manifest: Manifest, steps: (route: RouteSpec) => RouteSteps, services: Services): Middleware | undefined {
  const { config } = services;
  if (config.mcpTools === 'none') return undefined;
  const servers = mcpServers(config.mcpTools, buildTools(manifest), { sessions: services.sessions, log: services.log, errors: manifest.errors, steps });
  return mcpEndpoint(servers, allowedHosts(config.host, config.mcpAllowedHosts), services.log);
}
