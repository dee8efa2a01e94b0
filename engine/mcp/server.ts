// One MCP server per served unit (an HTTP request, a stdio connection), answering from a listing
// built once at boot: `tools/list` hands back the prebuilt array, `tools/call` finds the tool by
// name and runs it through the route's pipeline.
import { Server, type CallToolResult } from '@modelcontextprotocol/server';
import type { HttpError } from '../http-error.js';
import { invalidParams, serviceError } from '../service-errors.js';
import { SERVICE_VERSION } from '../openapi.js';
import { callTool, toolError, type CallDeps, type Caller } from './call.js';
import type { ToolSet } from '../types.js';
import { listingFor, searchIndex, type Listing } from './sets.js';
import type { ToolEntry } from './tools.js';

export type ServerFor = (caller: Caller) => Server;

export function mcpServers(set: ToolSet, entries: readonly ToolEntry[], deps: CallDeps): ServerFor {
  const listing = listingFor(set, entries);
  const search = searchIndex(entries);
  return (caller) => {
    const server = new Server({ name: 'socialgate', version: SERVICE_VERSION }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [...listing.tools] }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args = {} } = request.params;
      const one: Caller = { ...caller, signal: ctx.mcpReq.signal };
      const served = listing.byName.get(name);
      if (!served) return toolError(unknownTool(name), deps.errors, caller.requestId);
      if (served.kind === 'route') return project(server, await callTool(served.entry, args, one, deps), served.entry.tool.outputSchema);
      if (served.kind === 'find') return found(search(String(args.words ?? ''), Math.min(25, Math.max(1, Number(args.limit) || 8))));
      const entry = listing.entries.get(String(args.name ?? ''));
      if (!entry) return toolError(unknownTool(String(args.name ?? '')), deps.errors, caller.requestId);
      if (served.kind === 'describe') return found({ tool: entry.tool });
      const given = args.arguments ?? {};
      if (typeof given !== 'object' || Array.isArray(given)) return toolError(invalidParams([{ param: 'arguments', problem: 'must be an object of the route\'s arguments' }]), deps.errors, caller.requestId);
      return callTool(entry, given as Record<string, unknown>, one, deps);
    });
    return server;
  };
}

/** Answers go through the SDK's codec for the client's protocol revision; errors go as they are. */
function project(server: Server, result: CallToolResult, schema: unknown): CallToolResult {
  return result.isError ? result : server.projectCallToolResult(result, schema as Record<string, unknown> | undefined);
}

function found(content: object): CallToolResult {
  const structured = Array.isArray(content) ? { routes: content } : (content as Record<string, unknown>);
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

const unknownTool = (name: string): HttpError =>
  serviceError('UnknownTool', `No tool named "${name}"`);

export type { Listing };
