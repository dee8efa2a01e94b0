// Which tools an MCP client sees. Hundreds of tools overflow an agent's context and confuse small
// models, so the default is the curated core the manifest marks; `all` lists every tool, `dynamic`
// three meta-tools that find, describe and call any of them, `none` turns the endpoint off.
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolSet } from '../types.js';
import type { ToolEntry } from './tools.js';

/** What one tool name does when called: a route's tool, or one of the meta-tools. */
export type Served = { readonly kind: 'route'; readonly entry: ToolEntry } | { readonly kind: 'find' | 'describe' | 'call' };

export interface Listing {
  readonly tools: readonly Tool[];
  readonly byName: ReadonlyMap<string, Served>;
  /** Every route tool, whatever is listed: `describe_route` and `call_route` reach them all. */
  readonly entries: ReadonlyMap<string, ToolEntry>;
}

export function listingFor(set: ToolSet, entries: readonly ToolEntry[]): Listing {
  const all = new Map(entries.map((entry) => [entry.name, entry]));
  if (set === 'dynamic') return { tools: META_TOOLS, byName: new Map(META_TOOLS.map((tool) => [tool.name, { kind: META_KIND[tool.name] }])), entries: all };
  const chosen = set === 'all' ? entries : set === 'core' ? entries.filter((entry) => entry.route.core) : [];
  return {
    tools: Object.freeze(chosen.map((entry) => entry.tool)),
    byName: new Map(chosen.map((entry) => [entry.name, { kind: 'route', entry }])),
    entries: all,
  };
}

const META_KIND: Readonly<Record<string, 'find' | 'describe' | 'call'>> = { find_routes: 'find', describe_route: 'describe', call_route: 'call' };

const NAME = { type: 'string', minLength: 1, maxLength: 100, description: 'A tool name as find_routes lists it (the operation id, e.g. getUserFollowers).' };

export const META_TOOLS: readonly Tool[] = Object.freeze<Tool[]>([
  {
    name: 'find_routes',
    title: 'Find routes by words',
    description:
      'Searches every route of the service (profiles, followers, posts, media, comments, stories, direct messages, ' +
      'search, uploads by URL, ...) by words and answers the best matches with their names and summaries. Then ' +
      'describe_route one, and call_route it.',
    inputSchema: {
      type: 'object',
      properties: {
        words: { type: 'string', minLength: 1, maxLength: 200, description: 'What you want to do, in a few words (e.g. "followers of a user").' },
        limit: { type: 'integer', minimum: 1, maximum: 25, default: 8 },
      },
      required: ['words'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'describe_route',
    title: 'Describe one route',
    description: 'The full definition of one route: its description, input schema (the arguments call_route takes), output schema and hints.',
    inputSchema: { type: 'object', properties: { name: NAME }, required: ['name'], additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'call_route',
    title: 'Call one route',
    description: 'Calls one route by name with its arguments (as describe_route gives its input schema) and answers its result or its error.',
    inputSchema: {
      type: 'object',
      properties: { name: NAME, arguments: { type: 'object', description: "The route's arguments.", default: {} } },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { openWorldHint: true },
  },
]);

/** Words of a route, built once: its name split at capitals, path, summary and description. */
export function searchIndex(entries: readonly ToolEntry[]): (words: string, limit: number) => { name: string; title: string; route: string }[] {
  const indexed = entries.map((entry) => ({
    entry,
    strong: wordsOf(`${entry.name.replace(/([A-Z])/g, ' $1')} ${entry.route.path} ${entry.route.summary}`),
    weak: wordsOf(entry.route.description ?? ''),
  }));
  return (words, limit) => {
    const query = [...wordsOf(words)];
    return indexed
      .map((item) => ({ item, score: query.reduce((sum, word) => sum + (hits(item.strong, word) ? 3 : hits(item.weak, word) ? 1 : 0), 0) }))
      .filter((scored) => scored.score > 0)
      .sort((a, b) => b.score - a.score || a.item.entry.name.localeCompare(b.item.entry.name))
      .slice(0, limit)
      .map(({ item: { entry } }) => ({ name: entry.name, title: entry.route.summary, route: entry.route.key }));
  };
}

function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 1)
      .map(stem),
  );
}

// Plurals and verb forms meet at a common stem ("followers" finds "follower", "liked" finds "like").
const stem = (word: string): string => word.replace(/(ies|es|s|ed|ing)$/, '') || word;

const hits = (words: ReadonlySet<string>, word: string): boolean => words.has(word);
