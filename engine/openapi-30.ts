// The OpenAPI document down-converted to 3.0 (GET /openapi.json?version=3.0), for client generators that
// read only 3.0: made once at boot from the 3.1 document, so both always say the same. JSON Schema 2020-12
// becomes the 3.0 schema dialect (type lists and null branches as `nullable`, `const` as a one-value enum,
// `examples` as `example`, a $ref with siblings wrapped in allOf); keywords 3.0 has no word for (if/then/else,
// content types of strings) are left out, which loses nothing a generated client checks. A form takes one
// media type (urlencoded, or multipart where files go), so a generator writes each field into one body.
type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => !!value && typeof value === 'object' && !Array.isArray(value);

/** JSON Schema keywords with no 3.0 equivalent. */
const DROPPED = new Set([
  'if',
  'then',
  'else',
  'contentMediaType',
  'contentEncoding',
  '$schema',
  '$id',
  '$comment',
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'patternProperties',
  '$defs',
  'contains',
]);
/** Keywords whose value is one schema, or a map or list of schemas. */
const ONE = new Set(['items', 'not', 'additionalProperties']);
const MANY = new Set(['allOf', 'anyOf', 'oneOf']);

export function schema30(input: unknown): unknown {
  if (!isNode(input)) return input;
  if (typeof input.$ref === 'string') return refWithSiblings(input);
  const out: Node = {};
  for (const [key, value] of Object.entries(input)) {
    if (DROPPED.has(key)) continue;
    if (key === 'type') Object.assign(out, typeOf(value));
    else if (key === 'const') out.enum = [value];
    else if (key === 'examples') Array.isArray(value) && value.length ? (out.example = value[0]) : undefined;
    else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') exclusive(out, key, value);
    else if (key === 'properties' && isNode(value)) out.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, schema30(s)]));
    else if (ONE.has(key)) out[key] = schema30(value);
    else if (MANY.has(key) && Array.isArray(value)) out[key] = value.map(schema30);
    else out[key] = value;
  }
  return withoutNullBranches(withoutEmptyAllOf(out));
}

/** 3.0 ignores a $ref's siblings: the reference goes into an allOf beside them. */
function refWithSiblings(input: Node): Node {
  const { $ref, ...siblings } = input;
  if (!Object.keys(siblings).length) return { $ref };
  return { allOf: [{ $ref }], ...(schema30(siblings) as Node) };
}

function typeOf(value: unknown): Node {
  if (!Array.isArray(value)) return value === 'null' ? { nullable: true } : { type: value };
  const types = value.filter((t) => t !== 'null');
  const nullable = types.length < value.length ? { nullable: true } : {};
  if (types.length === 1) return { type: types[0], ...nullable };
  return { anyOf: types.map((type) => ({ type })), ...nullable };
}

/** 2020-12's numeric exclusive bounds are 3.0's bound plus a boolean. */
function exclusive(out: Node, key: 'exclusiveMinimum' | 'exclusiveMaximum', value: unknown): void {
  if (typeof value !== 'number') return void (out[key] = value);
  out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
  out[key] = true;
}

function withoutEmptyAllOf(schema: Node): Node {
  if (!Array.isArray(schema.allOf)) return schema;
  const kept = schema.allOf.filter((part) => !(isNode(part) && Object.keys(part).length === 0));
  const { allOf: _all, ...rest } = schema;
  return kept.length ? { ...rest, allOf: kept } : rest;
}

/** `anyOf: [X, {type: null}]` (null branches became `{nullable: true}`) is X, nullable. */
function withoutNullBranches(schema: Node): Node {
  if (!Array.isArray(schema.anyOf)) return schema;
  const isNull = (part: unknown) => isNode(part) && part.nullable === true && Object.keys(part).length === 1;
  const kept = schema.anyOf.filter((part) => !isNull(part));
  if (kept.length === schema.anyOf.length) return schema;
  const { anyOf: _any, ...rest } = schema;
  if (kept.length !== 1) return { ...rest, anyOf: kept, nullable: true };
  const only = kept[0] as Node;
  return typeof only.$ref === 'string' ? { ...rest, allOf: [only], nullable: true } : { ...rest, ...only, nullable: true };
}

const FORM = 'application/x-www-form-urlencoded';

function content30(content: unknown, oneForm: boolean): unknown {
  if (!isNode(content)) return content;
  const types = oneForm && FORM in content ? [FORM] : Object.keys(content);
  return Object.fromEntries(
    types.map((type) => {
      const media = content[type] as Node;
      return [type, { ...media, ...(media.schema !== undefined ? { schema: schema30(media.schema) } : {}) }];
    }),
  );
}

function operation30(operation: Node): Node {
  const out: Node = { ...operation };
  if (Array.isArray(operation.parameters)) out.parameters = operation.parameters.map((p: Node) => ({ ...p, schema: schema30(p.schema) }));
  if (isNode(operation.requestBody)) out.requestBody = { ...operation.requestBody, content: content30(operation.requestBody.content, true) };
  if (isNode(operation.responses)) out.responses = responses30(operation.responses);
  return out;
}

function responses30(responses: Node): Node {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      isNode(response) && response.content ? { ...response, content: content30(response.content, false) } : response,
    ]),
  );
}

export function downConvert(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { webhooks: _hooks, jsonSchemaDialect: _dialect, ...rest } = document as Node;
  const info = rest.info as Node;
  const { identifier: _id, ...license } = (info.license ?? {}) as Node;
  const components = rest.components as Node;
  const paths = Object.fromEntries(
    Object.entries(rest.paths as Node).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item as Node).map(([method, op]) => [method, isNode(op) ? operation30(op) : op])),
    ]),
  );
  return {
    ...rest,
    openapi: '3.0.3',
    info: { ...info, ...(info.license ? { license } : {}) },
    paths,
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries((components.schemas ?? {}) as Node).map(([name, s]) => [name, schema30(s)])),
      responses: responses30((components.responses ?? {}) as Node),
    },
  };
}
