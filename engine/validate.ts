// One AJV validator per route, compiled once at boot from the route's params: the properties are
// the parameters, additionalProperties is false so a typo in a name is a 422, not a silent default.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ParamProblem } from './http-error.js';
import { COMPONENT_PREFIX } from './manifest/refs.js';
import type { InputBag, JsonSchema, Manifest, RouteSpec } from './types.js';

const COMPONENTS_ID = 'https://socialgate.local/components';

export type RouteValidator = (input: InputBag) => readonly ParamProblem[];

const NONE: readonly ParamProblem[] = Object.freeze([]);

export function createAjv(manifest: Manifest): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
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
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)
        ? [key, COMPONENTS_ID + value]
        : [key, forAjv(value)],
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

export function compileValidators(manifest: Manifest, ajv: Ajv): ReadonlyMap<RouteSpec, RouteValidator> {
  const validators = new Map<RouteSpec, RouteValidator>();
  for (const route of manifest.routes) {
    const check = ajv.compile(forAjv(requestSchema(route)) as JsonSchema);
    validators.set(route, (input) => (check(input) ? NONE : problems(check)));
  }
  return validators;
}

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
    return param ? { param, problem: `missing field ${String(error.params.missingProperty)}${inner}` } : { param: String(error.params.missingProperty), problem: 'required' };
  }
  if (error.keyword === 'additionalProperties') {
    return param ? { param, problem: `unknown field ${String(error.params.additionalProperty)}${inner}` } : { param: String(error.params.additionalProperty), problem: 'unknown parameter' };
  }
  if (error.keyword === 'enum') return { param, problem: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
  return { param, problem: `${error.message ?? 'is invalid'}${inner}` };
}
