// Tool schemas must stand alone: an MCP client compiles each one by itself, with no OpenAPI
// components document beside it. The components a schema names are copied under its own `$defs`.
import { COMPONENT_PREFIX, refsIn } from '../manifest/refs.js';
import type { JsonSchema } from '../types.js';

const DEFS_PREFIX = '#/$defs/';

/** The schema with its component references (and theirs) carried along under `$defs`. */
export function selfContained(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): JsonSchema {
  const names = closure(schema, components);
  const body = toDefs(schema) as JsonSchema;
  if (names.length === 0) return body;
  return { ...body, $defs: Object.fromEntries(names.map((name) => [name, toDefs(components[name])])) };
}

/** Every component reachable from the schema, in a stable order. */
function closure(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): string[] {
  const seen = new Set<string>();
  const queue = [...refsIn(schema)];
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...refsIn(components[name]));
  }
  return [...seen].sort();
}

function toDefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toDefs);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)
        ? [key, DEFS_PREFIX + value.slice(COMPONENT_PREFIX.length)]
        : [key, toDefs(value)],
    ),
  );
}

/**
 * MCP's structured content is an object, and clients read the output schema's root to know it
 * is one. A route answering a named record gets that record's schema at the root; an inline
 * object keeps its own; any other answer (a list, a boolean, a string) is undefined here and is
 * carried as `result`.
 */
export function objectRoot(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): JsonSchema | undefined {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX)) {
    const named = components[ref.slice(COMPONENT_PREFIX.length)];
    return named && objectRoot(named, components);
  }
  return schema.type === 'object' ? schema : undefined;
}
