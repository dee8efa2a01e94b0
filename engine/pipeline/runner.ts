// A route's steps for callers that are not an HTTP request (a job's pages): the same coercion,
// validation, resolvers, single upstream call and shaping as its handler and its MCP tool, through
// the session's lane and governor.
import { mapError } from '../errors.js';
import type { BackgroundRoutes, InputBag, Manifest, RouteSpec, SessionRecord } from '../types.js';
import type { RouteSteps } from './handler.js';
import { RequestState } from './request.js';

export function backgroundRoutes(manifest: Manifest, steps: (route: RouteSpec) => RouteSteps): BackgroundRoutes {
  const byKey = new Map(manifest.routes.map((route) => [route.key, route]));
  return {
    routes: manifest.routes,
    schemas: manifest.schemas,
    route: (key) => byKey.get(key),
    statusOf: (error) => {
      const mapped = mapError(error, manifest.errors);
      return { status: mapped.status, excType: mapped.body.exc_type, retryAfter: mapped.retryAfter };
    },
    input(route, raw) {
      const { readValues, check } = steps(route);
      const state = new RequestState('background');
      check(state, readValues(raw as Record<string, unknown>, undefined, state));
      return state.bag;
    },
    async run(route, bag: InputBag, session: SessionRecord, signal: AbortSignal, options) {
      const state = new RequestState('background');
      state.origin = 'background';
      state.via = options?.via;
      Object.assign(state.bag, bag);
      state.session = session;
      try {
        return await steps(route).run(state, [], () => signal);
      } finally {
        state.settle();
      }
    },
  };
}
