// Schema references are written by bare name in the manifest (`items: User`) and become OpenAPI
// component references; the validator rewrites them to its own component document.
import type { JsonSchema } from '../types.js';

export const COMPONENT_PREFIX = '#/components/schemas/';

export function schemaRef(nameOrSchema: string | JsonSchema): JsonSchema {
  return typeof nameOrSchema === 'string' ? { $ref: COMPONENT_PREFIX + nameOrSchema } : { ...nameOrSchema };
}

/** Every component name a schema refers to, however deep. */
export function refsIn(schema: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) refsIn(item, found);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)) found.add(value.slice(COMPONENT_PREFIX.length));
      else refsIn(value, found);
    }
  }
  return found;
}
