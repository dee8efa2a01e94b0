// Normalising one parameter: fills in where it is read, its upstream keyword, and the JSON Schema
// of its value that the route's validator and the OpenAPI document share.
import { CONTENT_KINDS, type HttpMethod, type JsonSchema, type JsonValue, type ParamSource, type ParamSpec, type ParamType } from '../types.js';
import { ManifestError } from './errors.js';
import type { RawParam } from './raw.js';
import { schemaRef } from './refs.js';

const BOUNDS = ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'] as const;
const FILE_KINDS: ReadonlySet<string> = new Set(CONTENT_KINDS);

export function normaliseParam(name: string, raw: RawParam, method: HttpMethod, where: { file: string; route: string }, example?: JsonValue): ParamSpec {
  const type = (raw.type ?? 'string') as ParamType;
  const key = `params.${name}`;
  const source = sourceOf(type, raw.in, method);
  if (type === 'file' && method === 'GET') throw new ManifestError(where.file, 'a GET route cannot take a file', { ...where, key });
  if ((type === 'file' || type === 'url') && raw.format && !FILE_KINDS.has(raw.format)) {
    throw new ManifestError(where.file, `unknown content kind "${raw.format}" (${CONTENT_KINDS.join(', ')})`, { ...where, key: `${key}.format` });
  }
  if (type === 'json' && raw.schema === undefined)
    throw new ManifestError(where.file, 'a json parameter needs the schema of its content', { ...where, key: `${key}.schema` });
  const item = itemSchema(type, raw);
  const schema: JsonSchema = raw.repeated ? arraySchema(item, raw) : item;
  if (raw.default !== undefined) schema.default = raw.default;
  const description = raw.description && raw.since ? `${raw.description} (aiograpi ${raw.since} and later.)` : raw.description;
  if (description) schema.description = description;
  if (raw.since && (raw.required || raw.default !== undefined))
    throw new ManifestError(where.file, 'a parameter with `since` is optional and has no default (it is passed only when given)', {
      ...where,
      key: `${key}.since`,
    });
  return Object.freeze({
    name,
    in: source,
    type,
    required: raw.required ?? false,
    repeated: raw.repeated ?? false,
    default: raw.default,
    description,
    example,
    schema,
    upstream: raw.upstream === false ? null : (raw.upstream ?? name),
    coerce: type,
    format: raw.format,
    ...(raw.since ? { since: raw.since } : {}),
  });
}

/** GET carries parameters in the query; POST, PATCH and DELETE as form fields (the catalogue's rule). */
function sourceOf(type: ParamType, given: ParamSource | undefined, method: HttpMethod): ParamSource {
  if (type === 'file') return 'file';
  if (given) return given;
  return method === 'GET' ? 'query' : 'form';
}

function itemSchema(type: ParamType, raw: RawParam): JsonSchema {
  const schema = baseSchema(type, raw);
  for (const bound of BOUNDS) if (raw[bound] !== undefined) schema[bound] = raw[bound];
  if (raw.format && type === 'string') schema.format = raw.format;
  return schema;
}

function baseSchema(type: ParamType, raw: RawParam): JsonSchema {
  switch (type) {
    case 'id':
      return { type: 'string', minLength: 1, pattern: '^\\S+$' };
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'url':
      return { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' };
    case 'file':
      return { type: 'string', format: 'binary' };
    case 'json':
      return typeof raw.schema === 'string' ? schemaRef(raw.schema) : { ...(raw.schema as JsonSchema) };
    default:
      return { type: 'string' };
  }
}

function arraySchema(item: JsonSchema, raw: RawParam): JsonSchema {
  const schema: JsonSchema = { type: 'array', items: item };
  if (raw.minItems !== undefined) schema.minItems = raw.minItems;
  if (raw.maxItems !== undefined) schema.maxItems = raw.maxItems;
  return schema;
}
