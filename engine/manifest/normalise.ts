// Step 2 of boot: turn the raw YAML entries into flat, frozen route records. Everything downstream
// (router, validators, OpenAPI, audit, tests) reads these records, never the YAML.
import type {
  ArgSource, CallSpec, ConstraintSpec, ErrorTable, HttpMethod, JsonSchema, JsonValue, ParamSpec, ResultSpec, RouteSpec,
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

export function normalise(files: readonly RawFile[]): Normalised {
  const out: Normalised = { routes: [], schemas: {}, tags: [], errors: { hierarchy: {}, rows: {}, messages: [] } };
  let sawErrors = false;
  for (const { file, doc } of files) {
    if (doc.routes) {
      for (const tag of [doc.tag!, ...(doc.tags ?? [])]) addTag(out.tags, tag, file);
      for (const raw of doc.routes) out.routes.push(normaliseRoute(raw, file, doc.area!, raw.tag ?? doc.tag!.name));
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

export function normaliseRoute(raw: RawRoute, file: string, area: string, tag: string): RouteSpec {
  const [method, path] = raw.route.split(' ') as [HttpMethod, string];
  const where = { file, route: raw.route };
  const example = routeExample(raw, where);
  const params = Object.entries(raw.params ?? {}).map(([name, param]) => normaliseParam(name, param, method, where, example[name]));
  const constraints = constraintsOf(raw);
  checkExclusiveExamples(params, constraints, where);
  const calls = normaliseCalls(raw, params);
  return Object.freeze({
    key: raw.route,
    id: operationId(method, path),
    method,
    path,
    area,
    tag,
    file,
    summary: raw.summary,
    description: raw.description,
    session: raw.session ?? 'required',
    core: raw.core === true,
    ...(raw.upstream_only ? { upstreamOnly: raw.upstream_only } : {}),
    plugin: raw.plugin,
    params: Object.freeze(params),
    constraints: Object.freeze(constraints),
    resolve: Object.freeze((raw.resolve ?? []).map((step) => Object.freeze({ ...step, from: Object.freeze([...step.from]) }))),
    rules: Object.freeze((raw.rules ?? []).map((rule) => ({ ...rule }))),
    calls: Object.freeze(calls),
    result: normaliseResult(raw.result),
    upstreamMethods: [], // filled by the checker, which knows the resolver and plugin registries
  });
}

/** Client-friendly, stable operation ids: lower camel case of the method and the path words. */
export function operationId(method: string, path: string): string {
  const words = [method.toLowerCase(), ...path.split(/[/\-_.]+/).filter(Boolean)];
  return words.map((word, index) => (index === 0 ? word : word[0].toUpperCase() + word.slice(1))).join('');
}

function normaliseCalls(raw: RawRoute, params: readonly ParamSpec[]): CallSpec[] {
  const passAll = (): Record<string, ArgSource> =>
    Object.fromEntries(params.filter((p) => p.upstream !== null).map((p) => [p.upstream!, { from: p.name }]));
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

function normaliseResult(raw: RawRoute['result']): ResultSpec {
  const options: Record<string, JsonValue> = {};
  if (raw.fields) options.fields = raw.fields;
  if (raw.keys) options.keys = raw.keys;
  if (raw.content_type) options.content_type = raw.content_type;
  if (raw.value !== undefined) options.value = raw.value;
  if (raw.status !== undefined) options.status = raw.status;
  if (raw.items !== undefined) options.items = schemaRef(raw.items) as JsonValue;
  if (raw.schema !== undefined) options.schema = schemaRef(raw.schema) as JsonValue;
  return Object.freeze({ shape: raw.shape, schema: {}, options: Object.freeze(options), from: raw.from, description: raw.description });
}

function normaliseErrors(raw: RawErrors): ErrorTable {
  const row = (r: { status: number; hint?: string; detail?: string; retry_after?: number; session?: 'challenge' }) =>
    Object.freeze({ status: r.status, hint: r.hint, detail: r.detail, retryAfter: r.retry_after, session: r.session });
  return Object.freeze({
    hierarchy: Object.freeze({ ...raw.hierarchy }),
    rows: Object.freeze(Object.fromEntries(Object.entries(raw.rows).map(([name, r]) => [name, row(r)]))),
    messages: Object.freeze((raw.messages ?? []).map((m) => Object.freeze({ contains: m.contains, excType: m.exc_type, row: row(m) }))),
  });
}
