// The MCP tools, built once at boot from the same normalised route records as the router, the
// validators and the OpenAPI document: a YAML edit that adds a route adds its tool, no code.
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { requestSchema } from '../validate.js';
import { shapes } from '../shapes.js';
import type { JsonSchema, Manifest, RouteSpec } from '../types.js';
import { objectRoot, selfContained } from './schema.js';

/** One tool and what calling it needs to know about its route. */
export interface ToolEntry {
  readonly name: string;
  readonly route: RouteSpec;
  /** As `tools/list` shows it. */
  readonly tool: Tool;
  /** A download: the call answers a link to the file, never its bytes. */
  readonly link: boolean;
  /** The answer is not an object, so the structured content carries it as `result`. */
  readonly wrapped: boolean;
}

// The service's own areas stay off the tool list: `system` answers operators (health, metrics,
// this document), and `auth` moves passwords, codes, exported settings and TOTP seeds, which must
// not pass through a model's context; `console` acts on every account at once and is the
// operator's, not an agent's; `webhooks` hands out signing secrets and sends every session's events
// to a URL. Agents act for a session the operator gives them.
const UNTOOLED_AREAS: ReadonlySet<string> = new Set(['system', 'auth', 'console', 'webhooks']);

/** A route is a tool unless it belongs to the service itself, takes multipart file bytes or answers a never-ending stream. */
export function servedAsTool(route: RouteSpec): boolean {
  return !UNTOOLED_AREAS.has(route.area) && route.request.files.length === 0 && route.result.body !== 'stream';
}

export function buildTools(manifest: Manifest): readonly ToolEntry[] {
  return Object.freeze(manifest.routes.filter(servedAsTool).map((route) => toolEntry(route, manifest.schemas)));
}

const LINK_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'The download route with these arguments: GET it with the same X-Session-ID (and API key).' },
    method: { const: 'GET' },
    filename: { type: 'string' },
  },
  required: ['url', 'method'],
};

function toolEntry(route: RouteSpec, components: Manifest['schemas']): ToolEntry {
  const link = route.result.body === 'file';
  const object = link ? LINK_SCHEMA : objectRoot(route.result.schema, components);
  const wrapped = !object;
  const output = object ?? { type: 'object', properties: { result: route.result.schema }, required: ['result'] };
  const tool: Tool = {
    name: route.id,
    title: route.summary,
    description: describe(route, link),
    inputSchema: selfContained(requestSchema(route), components) as Tool['inputSchema'],
    outputSchema: selfContained(output, components) as Tool['outputSchema'],
    annotations: annotationsFor(route),
    _meta: { [ACTION_META]: route.action },
  };
  return Object.freeze({ name: route.id, route, tool: Object.freeze(tool), link, wrapped });
}

const WHOLE_LIST =
  'One page at a time. For the whole list, start a job instead (postJobs with this route), follow it ' +
  'with getJobsStatus and read it with getJobsResults (a link).';

function describe(route: RouteSpec, link: boolean): string {
  const text = route.description ? `${route.summary}. ${route.description}` : route.summary;
  if (link) return `${text}\n\nAnswers a link to the file (and its name), never the bytes.`;
  // A paged shape's GET routes are job kinds: a whole list goes through the jobs tools, not page after page.
  return shapes[route.result.shape]?.paging && route.method === 'GET' ? `${text}\n\n${WHOLE_LIST}` : text;
}

/** Where each tool names its route's action class, for clients and gateways that budget or gate by it. */
export const ACTION_META = 'socialgate/action';

/**
 * From the route's action class and method: a `read` only reads; a DELETE that writes removes;
 * reads, PATCH (setters here) and DELETE leave the same state when repeated, a POST write may not
 * (a second comment, a second message); a route that reaches the platform acts in an open world.
 */
export function annotationsFor(route: RouteSpec): ToolAnnotations {
  const reads = route.action === 'read';
  return Object.freeze({
    title: route.summary,
    readOnlyHint: reads,
    destructiveHint: !reads && route.method === 'DELETE',
    idempotentHint: reads || route.method !== 'POST',
    openWorldHint: route.upstreamMethods.length > 0 || route.area === 'jobs',
  });
}
