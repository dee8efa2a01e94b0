// The query string as the parameter readers want it: each name once, a string, or a list when the
// name repeats. Koa's `ctx.query` gives the same object through URLSearchParams, a getAll per name
// and a defineProperty per key, which was a twentieth of an authenticated read's CPU; most query
// strings have nothing to decode, and those are split here directly.
import type { ParameterizedContext } from 'koa';

export type Query = Record<string, string | string[]>;

/** The request's query, parsed as URLSearchParams would (`+` is a space, `%XX` is decoded). */
export function queryOf(ctx: ParameterizedContext): Query {
  return parseQuery(ctx.querystring);
}

/**
 * The parsed object: nothing inherited (a name such as `__proto__` or `toString` is just a name),
 * yet in V8's fast mode. `Object.create(null)` would give a dictionary-mode object, slower to fill
 * and to read than Koa's own.
 */
const ParsedQuery = function ParsedQuery() {} as unknown as new () => Query;
ParsedQuery.prototype = Object.create(null);

export function parseQuery(text: string): Query {
  const query = new ParsedQuery();
  if (text === '') return query;
  if (text.includes('%') || text.includes('+')) {
    for (const [name, value] of new URLSearchParams(text)) add(query, name, value);
    return query;
  }
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) add(query, pair, '');
    else add(query, pair.slice(0, eq), pair.slice(eq + 1));
  }
  return query;
}

function add(query: Query, name: string, value: string): void {
  const known = query[name];
  if (known === undefined) query[name] = value;
  else if (typeof known === 'string') query[name] = [known, value];
  else known.push(value);
}
