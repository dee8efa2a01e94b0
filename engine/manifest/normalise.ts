// Step 2 of boot: turn the raw YAML entries into flat, frozen route records, final when this step
// ends: the registries (shapes, resolvers, plugins) fill in what they own here (the result's schema,
// content type and body; the upstream methods a route may reach), and the checker only checks.
// Everything downstream (router, validators, OpenAPI, MCP, audit, tests) reads these records as
// they are, never the YAML.
import type {
  ActionClass,
  ArgSource,
  CallSpec,
  ConstraintSpec,
  ErrorTable,
  HttpMethod,
  JsonSchema,
  JsonValue,
  ParamSpec,
  Plugin,
  RequestParts,
  Resolver,
  ResultSpec,
  RouteScope,
  RouteSpec,
  ShapeEntry,
} from '../types.js';
import { ManifestError } from './errors.js';
import { checkExclusiveExamples, routeExample } from './examples.js';
import { normaliseParam } from './params.js';
import type { RawCall, RawErrors, RawFile, RawRoute } from './raw.js';
import { schemaRef } from './refs.js';

export interface Normalised {
  readonly routes: RouteSpec[];
  readonly schemas: Record<string, JsonSchema>;
  readonly tags: { name: string; description?: string }[];
  readonly errors: ErrorTable;
}

/** What normalisation reads from the registries; the checker checks the rest of each tag (manifest/check.ts). */
export interface NormaliseRegistries {
  readonly shapes: Readonly<Record<string, ShapeEntry>>;
  readonly resolvers: Readonly<Record<string, Resolver>>;
  readonly plugins: Readonly<Record<string, Plugin>>;
}

export function normalise(files: readonly RawFile[], registries: NormaliseRegistries): Normalised {
  const out: Normalised = { routes: [], schemas: {}, tags: [], errors: { hierarchy: {}, rows: {}, messages: [] } };
  let sawErrors = false;
  for (const { file, doc } of files) {
    if (doc.routes) {
      for (const tag of [doc.tag!, ...(doc.tags ?? [])]) addTag(out.tags, tag, file);
      for (const raw of doc.routes)
        out.routes.push(
          normaliseRoute(
            raw,
            { file, area: doc.area!, own: doc.own === true, tag: raw.tag ?? doc.tag!.name, writes: doc.action, reconcile: doc.reconcile },
            registries,
          ),
        );
    }
    if (doc.schemas) addSchemas(out.schemas, doc.schemas, file);
    if (doc.errors) {
      if (sawErrors) throw new ManifestError(file, 'a second error table', { key: 'errors' });
      sawErrors = true;
      (out as { errors: ErrorTable }).errors = normaliseErrors(doc.errors);
    }
  }
  return out;
}

function addTag(into: { name: string; description?: string }[], tag: { name: string; description?: string }, file: string): void {
  if (into.some((known) => known.name === tag.name)) throw new ManifestError(file, `tag "${tag.name}" declared twice`, { key: 'tag' });
  into.push({ ...tag });
}

function addSchemas(into: Record<string, JsonSchema>, schemas: Record<string, JsonSchema>, file: string): void {
  for (const [name, schema] of Object.entries(schemas)) {
    if (into[name]) throw new ManifestError(file, 'schema defined twice', { key: `schemas.${name}` });
    into[name] = schema;
  }
}

export function normaliseRoute(raw: RawRoute, place: RoutePlace, registries: NormaliseRegistries): RouteSpec {
  const { file, area, tag } = place;
  const [method, path] = raw.route.split(' ') as [HttpMethod, string];
  const where = { file, route: raw.route };
  const fail = (problem: string, key: string): never => {
    throw new ManifestError(file, problem, { route: raw.route, key });
  };
  const example = routeExample(raw, where);
  const params = Object.entries(raw.params ?? {}).map(([name, param]) => normaliseParam(name, param, method, where, example[name]));
  const constraints = constraintsOf(raw);
  checkExclusiveExamples(params, constraints, where);
  const calls = normaliseCalls(raw, params);
  const shape = registries.shapes[raw.result.shape] ?? fail(`unknown result shape "${raw.result.shape}"`, 'result.shape');
  const plugin = raw.plugin ? (registries.plugins[raw.plugin] ?? fail(`unknown plugin "${raw.plugin}"`, 'plugin')) : undefined;
  const resolve = (raw.resolve ?? []).map((step, index) => {
    if (!registries.resolvers[step.by]) fail(`unknown resolver "${step.by}"`, `resolve.${index}.by`);
    return Object.freeze({ ...step, from: Object.freeze([...step.from]) });
  });
  const uses = [...calls.map((c) => c.method), ...resolve.flatMap((s) => registries.resolvers[s.by].uses), ...(plugin?.uses ?? [])];
  return Object.freeze({
    key: raw.route,
    id: operationId(method, path),
    method,
    path,
    area,
    tag,
    file,
    summary: raw.summary,
    description: raw.since && raw.description ? `${raw.description} (aiograpi ${raw.since} and later.)` : raw.description,
    ...(raw.since ? { since: raw.since } : {}),
    session: raw.session ?? 'required',
    scope: raw.scope ?? defaultScope(area, method),
    ...(raw.owns ? { owns: raw.owns } : {}),
    action: actionOf(raw, method, place.writes),
    ...reconcileOf(raw, method, place.reconcile),
    core: raw.core === true,
    ...(raw.upstream_only ? { upstreamOnly: raw.upstream_only } : {}),
    ...(raw.extension ? { extension: true } : {}),
    ...(place.own ? { own: true } : {}),
    plugin: raw.plugin,
    params: Object.freeze(params),
    request: requestParts(params),
    constraints: Object.freeze(constraints),
    resolve: Object.freeze(resolve),
    rules: Object.freeze((raw.rules ?? []).map((rule) => ({ ...rule }))),
    calls: Object.freeze(calls),
    result: normaliseResult(raw.result, shape),
    upstreamMethods: Object.freeze([...new Set(uses)].sort()),
  });
}

/** The system routes are open; otherwise a read needs `read` and anything else `write`, unless the manifest says. */
function defaultScope(area: string, method: HttpMethod): RouteScope {
  if (area === 'system') return 'none';
  return method === 'GET' ? 'read' : 'write';
}

/** Where a route was declared: its file, area and tag, and the class of the area's writes. */
export interface RoutePlace {
  readonly file: string;
  readonly area: string;
  readonly own: boolean;
  readonly tag: string;
  readonly writes?: ActionClass;
  /** The file's read-back check of its writes, where a route names none. */
  readonly reconcile?: string;
}

/** A write's read-back check as the manifest names it (the route's, else its file's); reads have none. */
function reconcileOf(raw: RawRoute, method: HttpMethod, area: string | undefined): { reconcile?: string } {
  const named = method === 'GET' ? undefined : (raw.reconcile ?? area);
  return named ? { reconcile: named } : {};
}

/** The route's own class, else the default of its method and area: a GET reads, a write is the area's (or `other`). */
function actionOf(raw: RawRoute, method: HttpMethod, writes: ActionClass | undefined): ActionClass {
  return raw.action ?? (method === 'GET' ? 'read' : (writes ?? 'other'));
}

function requestParts(params: readonly ParamSpec[]): RequestParts {
  const of = (part: ParamSpec['in']) => Object.freeze(params.filter((param) => param.in === part));
  return Object.freeze({ query: of('query'), form: of('form'), files: of('file') });
}

/** Client-friendly, stable operation ids: lower camel case of the method and the path words. */
export function operationId(method: string, path: string): string {
  const words = [method.toLowerCase(), ...path.split(/[/\-_.]+/).filter(Boolean)];
  return words.map((word, index) => (index === 0 ? word : word[0].toUpperCase() + word.slice(1))).join('');
}

function normaliseCalls(raw: RawRoute, params: readonly ParamSpec[]): CallSpec[] {
  const passAll = (): Record<string, ArgSource> => Object.fromEntries(params.filter((p) => p.upstream !== null).map((p) => [p.upstream!, { from: p.name }]));
  if (raw.upstream) return [Object.freeze({ method: raw.upstream, args: Object.freeze(passAll()) })];
  return (raw.calls ?? []).map((call: RawCall) =>
    Object.freeze({
      method: call.method,
      when: call.when ? Object.freeze({ ...call.when }) : undefined,
      args: Object.freeze(call.args === undefined ? passAll() : argsOf(call.args)),
      as: call.as,
    }),
  );
}

function argsOf(args: NonNullable<RawCall['args']>): Record<string, ArgSource> {
  const entries = Array.isArray(args) ? args.map((name) => [name, name] as const) : Object.entries(args);
  return Object.fromEntries(entries.map(([keyword, source]) => [keyword, argSource(source)]));
}

function argSource(source: string | { const: JsonValue }): ArgSource {
  if (typeof source !== 'string') return Object.freeze({ const: source.const });
  const [from, ...path] = source.split('.');
  return Object.freeze(path.length ? { from, path: Object.freeze(path) } : { from });
}

function constraintsOf(raw: RawRoute): ConstraintSpec[] {
  const kinds = ['exactly_one', 'at_least_one', 'at_most_one'] as const;
  return kinds.flatMap((kind) => (raw[kind] ?? []).map((group) => Object.freeze({ kind, params: Object.freeze([...group]) })));
}

function normaliseResult(raw: RawRoute['result'], shape: ShapeEntry): ResultSpec {
  const options: Record<string, JsonValue> = {};
  if (raw.fields) options.fields = raw.fields;
  if (raw.keys) options.keys = raw.keys;
  if (raw.value !== undefined) options.value = raw.value;
  if (raw.status !== undefined) options.status = raw.status;
  if (raw.items !== undefined) options.items = schemaRef(raw.items) as JsonValue;
  if (raw.schema !== undefined) options.schema = schemaRef(raw.schema) as JsonValue;
  const schema = shape.schema({ items: options.items as JsonSchema | undefined, schema: options.schema as JsonSchema | undefined });
  return Object.freeze({
    shape: raw.shape,
    schema,
    options: Object.freeze(options),
    from: raw.from,
    description: raw.description,
    contentType: raw.content_type ?? shape.contentType ?? 'application/json',
    body: shape.body ?? 'json',
  });
}

function normaliseErrors(raw: RawErrors): ErrorTable {
  const row = (r: { status: number; hint?: string; detail?: string; retry_after?: number; session?: 'challenge' | 'freeze' }) =>
    Object.freeze({ status: r.status, hint: r.hint, detail: r.detail, retryAfter: r.retry_after, session: r.session });
  return Object.freeze({
    hierarchy: Object.freeze({ ...raw.hierarchy }),
    rows: Object.freeze(Object.fromEntries(Object.entries(raw.rows).map(([name, r]) => [name, row(r)]))),
    messages: Object.freeze((raw.messages ?? []).map((m) => Object.freeze({ contains: m.contains, excType: m.exc_type, row: row(m) }))),
  });
}
