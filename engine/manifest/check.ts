// Step 3 of boot: check every tag and name in the normalised table against the registries, so an
// unknown coercion, shape, resolver, plugin or schema stops the boot instead of a request.
import type { JsonSchema, Manifest, Plugin, Resolver, RouteSpec, ShapeEntry } from '../types.js';
import { ManifestError } from './errors.js';
import type { Normalised } from './normalise.js';
import { refsIn } from './refs.js';

export interface Registries {
  readonly coercers: Readonly<Record<string, unknown>>;
  readonly shapes: Readonly<Record<string, ShapeEntry>>;
  readonly resolvers: Readonly<Record<string, Resolver>>;
  readonly plugins: Readonly<Record<string, Plugin>>;
}

/** Inputs the engine provides itself (see manifest/README.md). */
export const ENGINE_INPUTS = new Set(['_workdir']);

export function checkManifest(table: Normalised, registries: Registries, format: number): Manifest {
  checkUnique(table.routes);
  const tags = new Set(table.tags.map((tag) => tag.name));
  for (const route of table.routes) {
    if (!tags.has(route.tag)) throw new ManifestError(route.file, `unknown tag "${route.tag}" (no area file declares it)`, { route: route.key, key: 'tag' });
  }
  const routes = table.routes.map((route) => checkRoute(route, table.schemas, registries));
  checkPluginsUsed(routes, registries.plugins);
  for (const [name, schema] of Object.entries(table.schemas)) checkRefs(schema, table.schemas, { file: 'manifest schemas', key: `schemas.${name}` });
  return deepFreeze({ format, routes, schemas: table.schemas, tags: table.tags, errors: table.errors });
}

function checkUnique(routes: readonly RouteSpec[]): void {
  const seen = new Map<string, RouteSpec>();
  for (const route of routes) {
    const byKey = seen.get(route.key);
    if (byKey) throw new ManifestError(route.file, `duplicate route (also in ${byKey.file})`, { route: route.key, key: 'route' });
    seen.set(route.key, route);
    const byId = seen.get(route.id);
    if (byId)
      throw new ManifestError(route.file, `operation id "${route.id}" is also that of ${byId.key} (${byId.file}): rename one path`, {
        route: route.key,
        key: 'route',
      });
    seen.set(route.id, route);
  }
}

/** Every name a route uses is known; the route is returned as it is (normalisation made it final). */
function checkRoute(route: RouteSpec, schemas: Record<string, JsonSchema>, reg: Registries): RouteSpec {
  const fail = (problem: string, key: string): never => {
    throw new ManifestError(route.file, problem, { route: route.key, key });
  };
  const names = new Set(route.params.map((p) => p.name));
  for (const param of route.params) {
    if (!(param.coerce in reg.coercers)) fail(`unknown type "${param.coerce}"`, `params.${param.name}.type`);
    checkRefs(param.schema, schemas, { file: route.file, route: route.key, key: `params.${param.name}.schema` });
  }
  if (!route.plugin && route.calls.length === 0 && route.result.shape !== 'constant') fail('a route needs upstream calls or a plugin', 'calls');
  if (route.result.shape === 'constant' && route.result.options.value === undefined) fail('a constant result needs its value', 'result.value');
  const known = new Set([...names, ...ENGINE_INPUTS]);
  route.calls.forEach((call, index) => {
    for (const name of Object.keys(call.when ?? {})) if (!known.has(name)) fail(`condition on unknown input "${name}"`, `calls.${index}.when.${name}`);
    for (const [keyword, source] of Object.entries(call.args)) {
      if ('from' in source && !known.has(source.from)) fail(`argument from unknown input "${source.from}"`, `calls.${index}.args.${keyword}`);
    }
    if (call.as) known.add(call.as);
  });
  route.resolve.forEach((step, index) => {
    for (const name of [...step.from, step.into]) if (!names.has(name)) fail(`resolver names unknown parameter "${name}"`, `resolve.${index}`);
  });
  route.constraints.forEach((c) => {
    for (const name of c.params) if (!names.has(name)) fail(`constraint names unknown parameter "${name}"`, c.kind);
  });
  if (route.result.from && !known.has(route.result.from)) fail(`result from unknown input "${route.result.from}"`, 'result.from');
  checkRefs(route.result.schema, schemas, { file: route.file, route: route.key, key: 'result' });
  return route;
}

function checkRefs(schema: unknown, schemas: Record<string, JsonSchema>, where: { file: string; route?: string; key: string }): void {
  for (const name of refsIn(schema)) {
    if (!schemas[name]) throw new ManifestError(where.file, `unknown schema "${name}"`, where);
  }
}

function checkPluginsUsed(routes: readonly RouteSpec[], plugins: Readonly<Record<string, Plugin>>): void {
  const used = new Set(routes.map((r) => r.plugin).filter(Boolean));
  const unused = Object.keys(plugins).filter((name) => !used.has(name));
  if (unused.length) throw new ManifestError('manifest', `plugin(s) registered but used by no route: ${unused.join(', ')}`, { key: 'plugin' });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  } else if (value && typeof value === 'object') {
    for (const child of Object.values(value)) if (child && typeof child === 'object' && !Object.isFrozen(child)) deepFreeze(child);
  }
  return value;
}
