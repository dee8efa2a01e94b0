// A route's steps for callers that are not an HTTP request (a job's pages): the same coercion,
// validation, resolvers, single upstream call and shaping as its handler and its MCP tool, through
// the session's lane and governor.
import { mapError, rowFor } from '../errors.js';
import { UpstreamError, type BackgroundRoutes, type BackgroundRunExtra, type InputBag, type Manifest, type RouteSpec, type SessionRecord } from '../types.js';
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
      const session = error instanceof UpstreamError ? rowFor(error, manifest.errors)?.session : undefined;
      return { status: mapped.status, excType: mapped.body.exc_type, retryAfter: mapped.retryAfter, session };
    },
    input(route, raw) {
      const { readValues, check } = steps(route);
      const state = new RequestState('background');
      check(state, readValues(raw as Record<string, unknown>, undefined, state));
      return state.bag;
    },
    async run(route, bag: InputBag, session: SessionRecord, signal: AbortSignal, extra?: BackgroundRunExtra) {
      const state = new RequestState('background');
      state.origin = 'background';
      if (extra?.files) state.files = [...extra.files];
      if (extra?.header) state.header = extra.header;
      state.via = extra?.via;
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
