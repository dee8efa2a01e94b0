// Parse and coerce: collect each parameter's raw strings from where the route reads it, then turn
// them into typed values. Every problem is collected, so one 422 names every bad parameter.
import type { ParameterizedContext } from 'koa';
import { coerceParam } from '../coerce.js';
import type { ParamProblem } from '../http-error.js';
import { CoercionError, type InputBag, type ParamSpec, type RouteSpec } from '../types.js';
import { queryOf } from './query.js';
import type { RequestState } from './request.js';

export type RawValues = Record<string, unknown>;

/** Names the engine reads for itself and never treats as parameters. */
const RESERVED = new Set(['sessionid']);

export type InputReader = (ctx: ParameterizedContext, state: RequestState) => ParamProblem[];

/** Reads, coerces and collects from where an HTTP request carries the route's parameters. */
export function inputReader(route: RouteSpec): InputReader {
  const readValues = valuesReader(route);
  // DELETE parameters are form fields (route.request), but clients often send them in the query
  // string: both are read, and the form wins when both carry a name.
  if (route.method === 'DELETE') return (ctx, state) => readValues(formOf(ctx), queryOf(ctx), state);
  // A route reads one part besides its files: the query when its parameters are there (or it has none and is a GET).
  const fromQuery = route.request.query.length > 0 || (route.method === 'GET' && route.params.length === 0);
  return fromQuery ? (ctx, state) => readValues(queryOf(ctx), undefined, state) : (ctx, state) => readValues(formOf(ctx), undefined, state);
}

/** Coerces raw values from one source (and a fallback) into the bag; MCP tool arguments use it too. */
export type ValuesReader = (first: RawValues, second: RawValues | undefined, state: RequestState) => ParamProblem[];

/**
 * Built once per route at boot: the names it knows, each parameter's bracketed alias and default
 * are worked out here, so a request only reads, coerces and collects.
 */
export function valuesReader(route: RouteSpec): ValuesReader {
  const known = new Set(route.params.map((p) => p.name));
  const readers = route.params.map(paramReader);
  return (first, second, state) => {
    const problems: ParamProblem[] = [];
    for (const read of readers) read(first, second, state, problems);
    unknownNames(first, known, problems);
    if (second) unknownNames(second, known, problems);
    return problems;
  };
}

const formOf = (ctx: ParameterizedContext): RawValues => (ctx.request as { body?: RawValues }).body ?? {};

function unknownNames(source: RawValues, known: ReadonlySet<string>, problems: ParamProblem[]): void {
  for (const name in source) {
    if (!known.has(name) && !RESERVED.has(name) && !known.has(name.replace(/\[\]$/, '')) && !problems.some((p) => p.param === name)) {
      problems.push({ param: name, problem: 'unknown parameter' });
    }
  }
}

type ParamRead = (first: RawValues, second: RawValues | undefined, state: RequestState, problems: ParamProblem[]) => void;

function paramReader(param: ParamSpec): ParamRead {
  const fallback = defaultOf(param);
  const bracketed = `${param.name}[]`;
  if (param.in === 'file') {
    return (_first, _second, state) => {
      const files = state.files.filter((f) => f.field === param.name);
      if (files.length) state.bag[param.name] = param.repeated ? files.map((f) => f.path) : files[0].path;
      else if (fallback) state.bag[param.name] = fallback();
    };
  }
  return (first, second, state, problems) => {
    const raw = rawValues(param.name, bracketed, first, second);
    if (raw === undefined) {
      if (fallback) state.bag[param.name] = fallback();
      return;
    }
    try {
      state.bag[param.name] = coerceParam(raw, param);
    } catch (error) {
      if (!(error instanceof CoercionError)) throw error;
      problems.push({ param: param.name, problem: error.message });
    }
  };
}

/** Defaults are copied per request only when they are objects a later step could change. */
function defaultOf(param: ParamSpec): (() => unknown) | undefined {
  const value = param.default;
  if (value === undefined) return undefined;
  return value !== null && typeof value === 'object' ? () => structuredClone(value) : () => value;
}

/** All values of one name in the first source that has it; bracketed forms (`ids[]`) count too. */
function rawValues(name: string, bracketed: string, first: RawValues, second: RawValues | undefined): readonly string[] | undefined {
  const value = first[name] ?? first[bracketed] ?? second?.[name] ?? second?.[bracketed];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return [value];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
}

/** Route-level rules across parameters: exactly one of, at least one of, at most one of. */
export function checkConstraints(route: RouteSpec, bag: InputBag): ParamProblem[] {
  let problems: ParamProblem[] | undefined;
  for (const c of route.constraints) {
    let given = 0;
    for (const name of c.params) if (bag[name] !== undefined && bag[name] !== '') given++;
    const problem = constraintProblem(c.kind, given, c.params);
    if (problem) (problems ??= []).push({ param: c.params.join(', '), problem });
  }
  return problems ?? NONE;
}

const NONE: ParamProblem[] = [];

/** The names are joined only for a problem, not on every request. */
function constraintProblem(kind: string, given: number, params: readonly string[]): string | undefined {
  if (kind === 'exactly_one' && given !== 1) return given ? `give only one of ${params.join(', ')}` : `give one of ${params.join(', ')}`;
  if (kind === 'at_least_one' && given === 0) return `give at least one of ${params.join(', ')}`;
  if (kind === 'at_most_one' && given > 1) return `give at most one of ${params.join(', ')}`;
  return undefined;
}
