// Bounds that come from settings (the watch interval's floor, say), written into the route records at
// boot, before the router, the validators, the OpenAPI document and the MCP tools read them: what a
// client is told is what is enforced. A feature module declares them; a bound for a route or parameter
// the manifest does not have stops the boot by name.
import type { JsonSchema, Manifest, ParamSpec, RouteSpec } from '../types.js';

export interface BoundValues {
  readonly minimum?: number;
  readonly maximum?: number;
}

/** Route key ("POST /events/watch") → parameter → its bounds as configured. */
export type SettingBounds = Readonly<Record<string, Readonly<Record<string, BoundValues>>>>;

export function withSettingBounds(manifest: Manifest, bounds: SettingBounds): Manifest {
  const keys = Object.keys(bounds);
  if (!keys.length) return manifest;
  const known = new Set(manifest.routes.map((route) => route.key));
  const unknown = keys.filter((key) => !known.has(key));
  if (unknown.length) throw new Error(`setting bounds name route(s) the manifest does not have: ${unknown.join(', ')}`);
  const routes = manifest.routes.map((route) => (bounds[route.key] ? boundRoute(route, bounds[route.key]) : route));
  return Object.freeze({ ...manifest, routes: Object.freeze(routes) });
}

function boundRoute(route: RouteSpec, byParam: Readonly<Record<string, BoundValues>>): RouteSpec {
  const missing = Object.keys(byParam).filter((name) => !route.params.some((param) => param.name === name));
  if (missing.length) throw new Error(`setting bounds name parameter(s) ${missing.join(', ')} that ${route.key} does not have`);
  const swap = (param: ParamSpec): ParamSpec => (byParam[param.name] ? boundParam(route, param, byParam[param.name]) : param);
  const request = { query: route.request.query.map(swap), form: route.request.form.map(swap), files: route.request.files.map(swap) };
  return Object.freeze({ ...route, params: Object.freeze(route.params.map(swap)), request: Object.freeze(request) });
}

function boundParam(route: RouteSpec, param: ParamSpec, values: BoundValues): ParamSpec {
  if (param.schema.type !== 'number' && param.schema.type !== 'integer') throw new Error(`setting bounds: ${route.key} ${param.name} is not a number`);
  const schema: JsonSchema = { ...param.schema };
  if (values.minimum !== undefined) schema.minimum = values.minimum;
  if (values.maximum !== undefined) schema.maximum = values.maximum;
  if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number' && schema.minimum > schema.maximum) {
    throw new Error(`setting bounds: ${route.key} ${param.name} would need at least ${schema.minimum} and at most ${schema.maximum}`);
  }
  return Object.freeze({ ...param, schema });
}
