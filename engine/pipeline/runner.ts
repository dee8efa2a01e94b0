// A route's steps for callers that are not an HTTP request (a job's pages): the same coercion,
// validation, resolvers, calls and shaping as its handler, built once per route on first use.
import type { LRUCache } from 'lru-cache';
import { mapError } from '../errors.js';
import type { RouteValidator } from '../validate.js';
import type { InputBag, Manifest, Resolver, RouteRunner, RouteSpec, SessionClient, ShapeEntry } from '../types.js';
import { checkInput, compileResolve, type Resolve } from './handler.js';
import { compileInvoker, type Invoker } from './invoke.js';
import { valuesReader, type ValuesReader } from './params.js';

export interface RunnerDeps {
  readonly manifest: Manifest;
  readonly validators: ReadonlyMap<RouteSpec, RouteValidator>;
  readonly shapes: Readonly<Record<string, ShapeEntry>>;
  readonly resolvers: Readonly<Record<string, Resolver>>;
  readonly resolverCache: LRUCache<string, {}>;
}

interface Compiled {
  readonly read: ValuesReader;
  readonly resolve?: Resolve;
  readonly invoke: Invoker;
}

export function routeRunner(deps: RunnerDeps): RouteRunner {
  const byKey = new Map(deps.manifest.routes.map((route) => [route.key, route]));
  const compiled = new Map<RouteSpec, Compiled>();
  const stepsOf = (route: RouteSpec): Compiled => {
    let steps = compiled.get(route);
    if (!steps) compiled.set(route, (steps = { read: valuesReader(route), resolve: compileResolve(route, deps), invoke: compileInvoker(route) }));
    return steps;
  };
  return {
    routes: deps.manifest.routes,
    schemas: deps.manifest.schemas,
    route: (key) => byKey.get(key),
    statusOf: (error) => {
      const mapped = mapError(error, deps.manifest.errors);
      return { status: mapped.status, excType: mapped.body.exc_type, retryAfter: mapped.retryAfter };
    },
    input(route, raw) {
      const state = { bag: {} as InputBag, files: [] };
      checkInput(route, stepsOf(route).read(raw, undefined, state), state.bag, deps.validators.get(route)!);
      return state.bag;
    },
    async run(route, bag, client: SessionClient, scope) {
      const steps = stepsOf(route);
      const working = { ...bag };
      if (steps.resolve) await steps.resolve(working, client, scope);
      return deps.shapes[route.result.shape].shape(await steps.invoke(working, client), route.result, working);
    },
  };
}
