// Manifest schemas are JSON Schema; OpenAPI 3.1 accepts them as they are but for `example`,
// which 3.1 spells `examples` inside schemas.
export function forOpenApi(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forOpenApi);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'example') out.examples = [value];
    else if (key === 'properties' && value && typeof value === 'object') out[key] = mapValues(value as Record<string, unknown>);
    else out[key] = key === 'default' || key === 'enum' || key === 'const' ? value : forOpenApi(value);
  }
  return out;
}

function mapValues(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, forOpenApi(schema)]));
}
