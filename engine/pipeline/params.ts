// Parse and coerce: collect each parameter's raw strings from where the route reads it, then turn
// them into typed values. Every problem is collected, so one 422 names every bad parameter.
import type { ParameterizedContext } from 'koa';
import { coerceParam } from '../coerce.js';
import type { ParamProblem } from '../http-error.js';
import { CoercionError, type InputBag, type ParamSpec, type RouteSpec } from '../types.js';
import type { RequestState } from './request.js';

type RawValues = Record<string, unknown>;

/** Names the engine reads for itself and never treats as parameters. */
const RESERVED = new Set(['sessionid']);

export function collectInput(ctx: ParameterizedContext, route: RouteSpec, state: RequestState): ParamProblem[] {
  const sources = sourcesFor(ctx, route);
  const problems: ParamProblem[] = [];
  const known = new Set(route.params.map((p) => p.name));
  for (const param of route.params) readParam(param, sources, state, problems);
  for (const source of sources) {
    for (const name of Object.keys(source)) {
      if (!known.has(name) && !RESERVED.has(name) && !problems.some((p) => p.param === name)) problems.push({ param: name, problem: 'unknown parameter' });
    }
  }
  return problems;
}

function sourcesFor(ctx: ParameterizedContext, route: RouteSpec): RawValues[] {
  if (route.method === 'GET') return [ctx.query];
  const body = (ctx.request as { body?: RawValues }).body ?? {};
  // Existing clients send DELETE parameters in the query string; the form wins when both are sent.
  return route.method === 'DELETE' ? [body, ctx.query] : [body];
}

function readParam(param: ParamSpec, sources: readonly RawValues[], state: RequestState, problems: ParamProblem[]): void {
  const bag: InputBag = state.bag;
  if (param.type === 'file') {
    const files = state.files.filter((f) => f.field === param.name);
    if (files.length) bag[param.name] = param.repeated ? files.map((f) => f.path) : files[0].path;
    else if (param.default !== undefined) bag[param.name] = structuredClone(param.default);
    return;
  }
  const raw = rawValues(param.name, sources);
  if (raw === undefined) {
    if (param.default !== undefined) bag[param.name] = structuredClone(param.default);
    return;
  }
  try {
    bag[param.name] = coerceParam(raw, param);
  } catch (error) {
    if (!(error instanceof CoercionError)) throw error;
    problems.push({ param: param.name, problem: error.message });
  }
}

/** All values of one name in the first source that has it; bracketed forms (`ids[]`) count too. */
function rawValues(name: string, sources: readonly RawValues[]): string[] | undefined {
  for (const source of sources) {
    const value = source[name] ?? source[`${name}[]`];
    if (value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    return list.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  }
  return undefined;
}

/** Route-level rules across parameters: exactly one of, at least one of, at most one of. */
export function checkConstraints(route: RouteSpec, bag: InputBag): ParamProblem[] {
  let problems: ParamProblem[] | undefined;
  for (const c of route.constraints) {
    let given = 0;
    for (const name of c.params) if (bag[name] !== undefined && bag[name] !== '') given++;
    const problem = constraintProblem(c.kind, given, c.params.join(', '));
    if (problem) (problems ??= []).push({ param: c.params.join(', '), problem });
  }
  return problems ?? NONE;
}

const NONE: ParamProblem[] = [];

function constraintProblem(kind: string, given: number, names: string): string | undefined {
  if (kind === 'exactly_one' && given !== 1) return given ? `give only one of ${names}` : `give one of ${names}`;
  if (kind === 'at_least_one' && given === 0) return `give at least one of ${names}`;
  if (kind === 'at_most_one' && given > 1) return `give at most one of ${names}`;
  return undefined;
}
