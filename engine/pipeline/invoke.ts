// Invoke: run the route's upstream calls in order, each when its condition holds, passing the
// keywords the manifest maps from the input bag. The last call that ran is the result.
import { serviceError } from '../service-errors.js';
import { pick } from '../shapes.js';
import type { ArgSource, CallSpec, Condition, InputBag, RouteSpec, SessionClient } from '../types.js';

/** Runs a route's calls for one request's input bag on one session's client. */
export type Invoker = (bag: InputBag, client: SessionClient) => Promise<unknown>;

/** Built once per route at boot: conditions and argument lists become small functions. */
export function compileInvoker(route: RouteSpec): Invoker {
  const calls = route.calls.map(compileCall);
  const only = calls.length === 1 ? calls[0] : undefined;
  // Most routes make one unconditional call: hand its promise back without another async frame.
  if (only && !only.when && !only.as && !route.result.from) return (bag, client) => client.call(only.method, only.args(bag));
  // Alternatives (GET /user by id or by username): when no call feeds another, the one call whose
  // condition holds is handed back directly; several holding still run in order.
  if (!route.result.from && calls.every((call) => call.when && !call.as)) {
    return (bag, client) => {
      const chosen = onlyHolding(calls, bag);
      return chosen ? client.call(chosen.method, chosen.args(bag)) : runSeveral(route, calls, bag, client);
    };
  }
  return (bag, client) => runSeveral(route, calls, bag, client);
}

async function runSeveral(route: RouteSpec, calls: readonly CompiledCall[], bag: InputBag, client: SessionClient): Promise<unknown> {
  let result: unknown;
  let ran = false;
  for (const call of calls) {
    if (call.when && !call.when(bag)) continue;
    result = await client.call(call.method, call.args(bag));
    ran = true;
    if (call.as) bag[call.as] = result;
  }
  if (!ran && route.calls.length === 0) return undefined; // a constant result: nothing to call
  if (!ran) throw serviceError('ValidationError', 'No upstream call matches the given parameters');
  return route.result.from ? bag[route.result.from] : result;
}

/** The one call whose condition holds; undefined when none or several do. */
function onlyHolding(calls: readonly CompiledCall[], bag: InputBag): CompiledCall | undefined {
  let chosen: CompiledCall | undefined;
  for (const call of calls) {
    if (!call.when!(bag)) continue;
    if (chosen) return undefined;
    chosen = call;
  }
  return chosen;
}

interface CompiledCall {
  readonly method: string;
  readonly when?: (bag: InputBag) => boolean;
  readonly args: (bag: InputBag) => Record<string, unknown>;
  readonly as?: string;
}

function compileCall(call: CallSpec): CompiledCall {
  const when = call.when;
  const args = Object.entries(call.args);
  return {
    method: call.method,
    when: when ? compileCondition(when) : undefined,
    args: (bag) => {
      const out: Record<string, unknown> = {};
      for (const [keyword, source] of args) {
        const value = argValue(source, bag);
        if (value !== undefined) out[keyword] = value;
      }
      return out;
    },
    as: call.as,
  };
}

export function holds(condition: Condition, bag: InputBag): boolean {
  return compileCondition(condition)(bag);
}

/** A condition's tests, one small function per named input, made once per call at boot. */
function compileCondition(condition: Condition): (bag: InputBag) => boolean {
  const tests = Object.entries(condition).map(([name, expected]) => conditionTest(name, expected));
  if (tests.length === 1) return tests[0];
  return (bag) => {
    for (const test of tests) if (!test(bag)) return false;
    return true;
  };
}

function conditionTest(name: string, expected: Condition[string]): (bag: InputBag) => boolean {
  if (expected === 'present') return (bag) => present(bag[name]);
  if (expected === 'absent') return (bag) => !present(bag[name]);
  if (Array.isArray(expected)) return (bag) => expected.includes(bag[name] as never);
  return (bag) => bag[name] === expected;
}

const present = (value: unknown): boolean => value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);

/** Only inputs that have a value are passed, so the upstream's own defaults apply otherwise. */
function argValue(source: ArgSource, bag: InputBag): unknown {
  if ('const' in source) return source.const;
  const value = bag[source.from];
  return source.path ? pick({ v: value }, ['v', ...source.path].join('.')) : value;
}
