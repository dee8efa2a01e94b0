// A route's example request: one map per route in the manifest (parameter → value), checked here
// and handed to each parameter, so /docs, the OpenAPI document and the example test read one value.
// The values are real in the sandbox's default world; the example test runs every one of them.
import type { ConstraintSpec, JsonValue, ParamSpec } from '../types.js';
import { ManifestError } from './errors.js';
import type { RawRoute } from './raw.js';

type Where = { file: string; route: string };

/** The route's example values by parameter, after checking each names a parameter that can carry one. */
export function routeExample(raw: RawRoute, where: Where): Readonly<Record<string, JsonValue>> {
  const example = raw.example ?? {};
  for (const [name, value] of Object.entries(example)) {
    const param = raw.params?.[name];
    if (!param) throw new ManifestError(where.file, `the example names "${name}", which is not a parameter`, { ...where, key: `example.${name}` });
    if (param.type === 'file') throw new ManifestError(where.file, 'a file has no example value (the page asks for one)', { ...where, key: `example.${name}` });
    if (param.repeated && !Array.isArray(value))
      throw new ManifestError(where.file, "a repeated parameter's example is a list", { ...where, key: `example.${name}` });
  }
  return example;
}

/** Mutually exclusive parameters show one example: a request filling two of them is refused. */
export function checkExclusiveExamples(params: readonly ParamSpec[], constraints: readonly ConstraintSpec[], where: Where): void {
  const given = new Set(params.filter((p) => p.example !== undefined).map((p) => p.name));
  for (const group of constraints) {
    if (group.kind === 'at_least_one') continue;
    const both = group.params.filter((name) => given.has(name));
    if (both.length > 1)
      throw new ManifestError(where.file, `the example fills ${both.join(' and ')}, which exclude each other (${group.kind})`, {
        ...where,
        key: `example.${both[1]}`,
      });
  }
}
