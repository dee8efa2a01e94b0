// One AJV validator per route, compiled once at boot from the route's params: the properties are
// the parameters, additionalProperties is false so a typo in a name is a 422, not a silent default.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { _, Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import standalone from 'ajv/dist/standalone/index.js';
import { projectRoot } from './root.js';
import type { ParamProblem } from './http-error.js';
import { COMPONENT_PREFIX } from './manifest/refs.js';
import type { InputBag, JsonSchema, Manifest, RouteSpec } from './types.js';

const COMPONENTS_ID = 'https://socialgate.local/components';

export type RouteValidator = (input: InputBag) => readonly ParamProblem[];

const NONE: readonly ParamProblem[] = Object.freeze([]);

export function createAjv(manifest: Manifest, opts: { source?: boolean } = {}): Ajv {
  const code = opts.source ? { source: true, esm: false, formats: FORMATS_REQUIRE } : undefined;
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false, ...(code ? { code } : {}) });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addKeyword({ keyword: 'example' });
  ajv.addSchema({ $id: COMPONENTS_ID, components: { schemas: manifest.schemas } });
  return ajv;
}

/** Rewrites OpenAPI component references to the validator's component document. */
export function forAjv(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX) ? [key, COMPONENTS_ID + value] : [key, forAjv(value)],
    ),
  );
}

export function requestSchema(route: RouteSpec): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(route.params.map((p) => [p.name, p.schema])),
    required: route.params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
    ...(route.rules.length ? { allOf: route.rules } : {}),
  };
}

/**
 * One validator per route: the build's precompiled function (dist/validators.cjs, written by
 * `npm run build`) where its key shows it was compiled from this very schema, else compiled now.
 * Compiling the product's ~280 validators was most of a boot's time.
 */
/** `precompiled` null compiles every validator now (what a boot without a build does). */
export function compileValidators(manifest: Manifest, precompiled: Precompiled | null = loadPrecompiled()): ReadonlyMap<RouteSpec, RouteValidator> {
  const validators = new Map<RouteSpec, RouteValidator>();
  const components = componentsKey(manifest);
  let ajv: Ajv | undefined;
  for (const route of manifest.routes) {
    const schema = forAjv(requestSchema(route)) as JsonSchema;
    const check = builtFor(route, schema, components, precompiled) ?? (ajv ??= createAjv(manifest)).compile(schema);
    validators.set(route, (input) => (check(input) ? NONE : problems(check)));
  }
  return validators;
}

const builtFor = (route: RouteSpec, schema: JsonSchema, components: string, precompiled: Precompiled | null): ValidateFunction | undefined =>
  precompiled?.keys[route.id] === routeKey(components, schema) ? precompiled.validators[route.id] : undefined;

/** The routes the build's validators serve as they are (the bench reports it; the test wants all). */
export function precompiledRoutes(manifest: Manifest, precompiled: Precompiled | null = loadPrecompiled()): RouteSpec[] {
  const components = componentsKey(manifest);
  return manifest.routes.filter((route) => builtFor(route, forAjv(requestSchema(route)) as JsonSchema, components, precompiled));
}

// -- Precompiled validators (AJV standalone code, made at build time) ------------------------

/** The formats' runtime, as the generated module requires it. */
// ajv's standalone module is CommonJS with its function as `default`, which NodeNext sees as the namespace.
const standaloneCode = (standalone as unknown as { default: typeof standalone.default }).default;

const FORMATS_REQUIRE = _`require("ajv-formats/dist/formats").fullFormats`;

export interface Precompiled {
  readonly keys: Readonly<Record<string, string>>;
  readonly validators: Readonly<Record<string, ValidateFunction>>;
}

export const precompiledPath = (): string => join(projectRoot(), 'dist', 'validators.cjs');

function loadPrecompiled(): Precompiled | null {
  const path = precompiledPath();
  if (!existsSync(path)) return null;
  try {
    const module = createRequire(import.meta.url)(path) as Record<string, ValidateFunction> & { keys: Record<string, string> };
    return { keys: module.keys, validators: module };
  } catch {
    return null; // a torn build: compile at boot as without one
  }
}

/** The source of a CommonJS module exporting one validator per route id and each one's key. */
export function precompiledSource(manifest: Manifest): string {
  const ajv = createAjv(manifest, { source: true });
  const components = componentsKey(manifest);
  const refs: Record<string, string> = {};
  const keys: Record<string, string> = {};
  for (const route of manifest.routes) {
    const schema = forAjv(requestSchema(route)) as JsonSchema;
    ajv.addSchema({ ...schema, $id: `route:${route.id}` });
    refs[route.id] = `route:${route.id}`;
    keys[route.id] = routeKey(components, schema);
  }
  return `${standaloneCode(ajv, refs)}\nmodule.exports.keys = ${JSON.stringify(keys)};\n`;
}

const componentsKey = (manifest: Manifest): string => hash(JSON.stringify(manifest.schemas));
const routeKey = (components: string, schema: JsonSchema): string => hash(components + JSON.stringify(schema));
const hash = (text: string): string => createHash('sha256').update(text).digest('base64url');

function problems(check: ValidateFunction): ParamProblem[] {
  const seen = new Set<string>();
  const out: ParamProblem[] = [];
  for (const error of check.errors ?? []) {
    // An if/then rule reports twice: the failing branch (which names the parameter) and "must
    // match then schema" at the root, which names nothing useful.
    if (error.keyword === 'if') continue;
    const problem = describe(error);
    const key = `${problem.param}\u0000${problem.problem}`;
    if (!seen.has(key)) out.push(problem), seen.add(key);
  }
  return out;
}

function describe(error: ErrorObject): ParamProblem {
  const [param = '', ...rest] = error.instancePath.split('/').slice(1);
  const inner = rest.length ? ` at ${rest.join('.')}` : '';
  if (error.keyword === 'required') {
    return param
      ? { param, problem: `missing field ${String(error.params.missingProperty)}${inner}` }
      : { param: String(error.params.missingProperty), problem: 'required' };
  }
  if (error.keyword === 'additionalProperties') {
    return param
      ? { param, problem: `unknown field ${String(error.params.additionalProperty)}${inner}` }
      : { param: String(error.params.additionalProperty), problem: 'unknown parameter' };
  }
  if (error.keyword === 'enum') return { param, problem: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
  return { param, problem: `${error.message ?? 'is invalid'}${inner}` };
}
