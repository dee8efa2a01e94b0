// completion/complete: values for a prompt's arguments and a resource template's variables. A
// manifest enum completes from the manifest; a username, hashtag or place from the platform, through
// the search route's tool (the same pipeline and session as any call). A failed search completes
// nothing rather than failing the client's typing.
import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/server';
import { callTool, type CallDeps, type Caller } from './call.js';
import { promptSuggests, USERNAMES, type Suggests } from './prompts.js';
import type { ToolEntry } from './tools.js';

/** The protocol's cap on the values of one completion answer. */
const MOST = 100;

export interface CompleteDeps extends CallDeps {
  readonly byRoute: ReadonlyMap<string, ToolEntry>;
}

export async function complete(params: CompleteRequest['params'], caller: Caller, deps: CompleteDeps): Promise<CompleteResult> {
  const { ref, argument } = params;
  const suggests =
    ref.type === 'ref/prompt'
      ? promptSuggests(ref.name, argument.name)
      : ref.uri.startsWith('socialgate://users/') && argument.name === 'username'
        ? USERNAMES
        : undefined;
  const values = suggests ? await valuesFor(suggests, argument.value, caller, deps) : [];
  return { completion: { values: values.slice(0, MOST), total: values.length, hasMore: values.length > MOST } };
}

async function valuesFor(suggests: Suggests, typed: string, caller: Caller, deps: CompleteDeps): Promise<string[]> {
  if ('enumOf' in suggests) {
    const known = deps.byRoute.get(suggests.enumOf)?.route.params.find((param) => param.name === suggests.param)?.schema.enum;
    return ((known ?? []) as unknown[]).map(String).filter((value) => value.startsWith(typed));
  }
  const entry = deps.byRoute.get(suggests.search);
  const query = typed.replace(/^[@#]/, '').trim();
  if (!entry || !query) return [];
  const result = await callTool(entry, { query }, caller, deps);
  if (result.isError) return [];
  const found = (result.structuredContent as { result?: unknown } | undefined)?.result;
  return Array.isArray(found)
    ? [...new Set(found.map((item) => (item as Record<string, unknown>)[suggests.field]).filter((value): value is string => typeof value === 'string'))]
    : [];
}
