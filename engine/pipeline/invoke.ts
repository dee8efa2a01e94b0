// Invoke: run the route's upstream calls in order, each when its condition holds, passing the
// keywords the manifest maps from the input bag. The last call that ran is the result.
import { HttpError } from '../http-error.js';
import { pick } from '../shapes.js';
import type { ArgSource, CallSpec, Condition, InputBag, RouteSpec, SessionClient } from '../types.js';

export async function runCalls(route: RouteSpec, bag: InputBag, client: SessionClient): Promise<unknown> {
  let result: unknown;
  let ran = false;
  for (const call of route.calls) {
    if (call.when && !holds(call.when, bag)) continue;
    result = await client.call(call.method, argsFor(call, bag));
    ran = true;
    if (call.as) bag[call.as] = result;
  }
  if (!ran && route.calls.length === 0) return undefined; // a constant result: nothing to call
  if (!ran) throw new HttpError(422, 'No upstream call matches the given parameters', { excType: 'ValidationError' });
  return route.result.from ? bag[route.result.from] : result;
}

export function holds(condition: Condition, bag: InputBag): boolean {
  return Object.entries(condition).every(([name, expected]) => {
    const value = bag[name];
    const present = value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);
    if (expected === 'present') return present;
    if (expected === 'absent') return !present;
    if (Array.isArray(expected)) return expected.includes(value as never);
    return value === expected;
  });
}

/** Keyword arguments: only inputs that have a value, so the upstream's own defaults apply otherwise. */
export function argsFor(call: CallSpec, bag: InputBag): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [keyword, source] of Object.entries(call.args)) {
    const value = valueOf(source, bag);
    if (value !== undefined) args[keyword] = value;
  }
  return args;
}

function valueOf(source: ArgSource, bag: InputBag): unknown {
  if ('const' in source) return source.const;
  const value = bag[source.from];
  return source.path ? pick({ v: value }, ['v', ...source.path].join('.')) : value;
}
