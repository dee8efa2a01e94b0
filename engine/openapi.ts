// The OpenAPI document, built once at boot from the same route records the router and the
// validators use. Nothing about a route is written here by hand.
import { OpenApiBuilder, type EncodingObject, type OperationObject, type ParameterObject, type ResponsesObject, type SchemaObject } from 'openapi3-ts/oas31';
import { forOpenApi } from './openapi-schema.js';
import { codes, keyedWrite, SERVICE_ERRORS, serviceCodesFor, type ServiceErrorTable } from './service-errors.js';
import type { ErrorTable, JsonValue, Manifest, ParamSpec, RouteSpec } from './types.js';

export const SERVICE_VERSION = '6.0.0';
/** What an upstream that raised an exception nobody mapped answers (engine/errors.ts). */
const UNMAPPED_STATUS = 502;

export function buildOpenApi(manifest: Manifest, opts: { title?: string; apiKeyAuth?: boolean } = {}): Record<string, unknown> {
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle(opts.title ?? 'socialgate')
    .addVersion(SERVICE_VERSION)
    .addDescription(describeService(manifest))
    .addLicense({ name: 'MIT', identifier: 'MIT' })
    .addServer({ url: '/', description: 'This server' })
    .addSecurityScheme('SessionId', { type: 'apiKey', in: 'header', name: 'X-Session-ID', description: 'Session ID returned by POST /auth/login' });
  // Only when the deployment sets an API key: then every route but the system ones needs it too.
  if (opts.apiKeyAuth)
    builder.addSecurityScheme('ApiKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key of the deployment (also accepted as X-API-Key). Each operation lists the scope its key needs: read, write or operator.',
    });
  for (const tag of manifest.tags) builder.addTag({ name: tag.name, description: tag.description ?? tag.name });
  for (const [name, schema] of Object.entries(manifest.schemas)) builder.addSchema(name, forOpenApi(schema) as SchemaObject);
  builder.addSchema('ErrorBody', errorBodySchema());
  builder.addResponse('Error', { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });
  const own = ownErrors(manifest);
  const errors = errorStatuses(manifest.errors, own);
  for (const [status, description] of errors.descriptions) builder.addResponse(errorResponseName(status), errorResponse(description));
  const paths: Record<string, Record<string, OperationObject>> = {};
  for (const route of manifest.routes) {
    const { operation, requestSchema } = operationFor(route, !!opts.apiKeyAuth && route.scope !== 'none', errors.upstream, own);
    if (requestSchema) builder.addSchema(requestSchemaName(route), requestSchema);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  for (const [path, item] of Object.entries(paths)) builder.addPath(path, item);
  return builder.getSpec() as unknown as Record<string, unknown>;
}

/** Explicit on every operation (an empty list means open), so clients and linters assume nothing. */
function securityOf(route: RouteSpec, apiKey: boolean): OperationObject['security'] {
  // OpenAPI 3.1 lets a non-OAuth requirement list roles: the key's scope the route needs.
  const key: Record<string, string[]> = apiKey ? { ApiKey: [route.scope] } : {};
  if (route.session === 'required') return [{ ...key, SessionId: [] }];
  if (route.session === 'optional') return [{ ...key, SessionId: [] }, ...(apiKey ? [key] : [{}])];
  return apiKey ? [key] : [];
}

export const requestSchemaName = (route: RouteSpec): string => route.id[0].toUpperCase() + route.id.slice(1) + 'Request';

function operationFor(
  route: RouteSpec,
  apiKey: boolean,
  upstream: readonly number[],
  own: ServiceErrorTable,
): { operation: OperationObject; requestSchema?: SchemaObject } {
  const { query, form, files } = route.request;
  const operation: OperationObject = {
    operationId: route.id,
    summary: route.summary,
    description: route.description ?? route.summary,
    tags: [route.tag],
    // The action class: which per-class budget counts the call, and whether it is a write.
    'x-action-class': route.action,
    parameters: [...query.map(queryParameter), ...(keyedWrite(route) ? [IDEMPOTENCY_KEY] : [])],
    responses: responsesFor(route, apiKey, upstream, own),
  };
  operation.security = securityOf(route, apiKey);
  const body = [...form, ...files];
  if (body.length === 0) return { operation };
  const requestSchema = formSchema(route, body);
  const ref = { $ref: `#/components/schemas/${requestSchemaName(route)}` };
  const urlencoded = { schema: ref, ...formEncoding(body, 'application/x-www-form-urlencoded') };
  const multipart = { schema: ref, ...formEncoding(body, 'multipart/form-data') };
  operation.requestBody = {
    required: body.some((p) => p.required),
    content: files.length ? { 'multipart/form-data': multipart } : { 'application/x-www-form-urlencoded': urlencoded, 'multipart/form-data': multipart },
  };
  return { operation, requestSchema };
}

/** The optional header of every write that acts on an account's platform (plugins/writes reads it). */
const IDEMPOTENCY_KEY: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the write happen once: a repeat with the same key and the same request (within SOCIALGATE_IDEMPOTENCY_TTL_HOURS, on any instance) ' +
    'answers the first answer again with `Idempotent-Replayed: true` and no second call to the platform; the same key with another request is 422 ' +
    '`IdempotencyKeyReused`; while the first runs, 409 `IdempotencyKeyInFlight`. Scoped to the session. 1 to 255 printable ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function queryParameter(param: ParamSpec): ParameterObject {
  const parameter: ParameterObject = {
    name: param.name,
    in: 'query',
    required: param.required,
    description: describeParam(param),
    schema: forOpenApi(
      param.type === 'json' ? { type: param.repeated ? 'array' : 'string', ...(param.repeated ? { items: { type: 'string' } } : {}) } : param.schema,
    ) as SchemaObject,
  };
  if (param.repeated) Object.assign(parameter, { style: 'form', explode: true });
  if (param.example !== undefined) parameter.example = param.type === 'json' ? jsonText(param) : param.example;
  return parameter;
}

function formSchema(route: RouteSpec, fields: readonly ParamSpec[]): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  for (const param of fields) {
    // A JSON field is described by its decoded schema, and its encoding says the form carries it as
    // JSON text (formEncoding): a page renders it as a text area, not as a file input.
    const schema = forOpenApi(param.schema) as SchemaObject;
    properties[param.name] = { ...schema, description: describeParam(param) };
    if (param.example !== undefined) properties[param.name].examples = [param.example];
  }
  const required = fields.filter((p) => p.required).map((p) => p.name);
  const rules = route.rules.length ? { allOf: forOpenApi(route.rules) as SchemaObject[] } : {};
  return { type: 'object', properties, ...(required.length ? { required } : {}), ...rules };
}

/** How each form field travels: JSON fields as JSON text, lists as the field repeated (never comma-joined). */
function formEncoding(fields: readonly ParamSpec[], mediaType: string): { encoding?: Record<string, EncodingObject> } {
  const encoding: Record<string, EncodingObject> = {};
  for (const param of fields) {
    const one: EncodingObject = {};
    if (param.type === 'json') one.contentType = 'application/json';
    // style and explode apply to urlencoded bodies only; multipart repeats a list's parts anyway.
    if (param.repeated && mediaType === 'application/x-www-form-urlencoded') Object.assign(one, { style: 'form', explode: true });
    if (Object.keys(one).length) encoding[param.name] = one;
  }
  return Object.keys(encoding).length ? { encoding } : {};
}

/** A query JSON parameter's example, as the text the query string carries. */
function jsonText(param: ParamSpec): JsonValue {
  const example = param.example as JsonValue;
  return param.repeated && Array.isArray(example) ? example.map((one) => JSON.stringify(one)) : JSON.stringify(example);
}

function describeParam(param: ParamSpec): string {
  const parts = [param.description ?? param.name];
  if (param.type === 'json') parts.push(param.repeated ? 'JSON-encoded: one JSON array, or the field repeated with one JSON value each.' : 'JSON-encoded.');
  if (param.repeated && param.type !== 'json') parts.push('Repeat the parameter once per value.');
  if (param.format && (param.type === 'file' || param.type === 'url')) parts.push(`Content: ${param.format.replace(/_/g, ' ')}.`);
  return parts.join(' ');
}

function responsesFor(route: RouteSpec, apiKey: boolean, upstream: readonly number[], own: ServiceErrorTable): ResponsesObject {
  const ok = route.result.description ?? 'Success';
  const schema = forOpenApi(route.result.schema) as SchemaObject;
  const responses: ResponsesObject = { [String(route.result.options.status ?? 200)]: { description: ok, content: { [route.result.contentType]: { schema } } } };
  // By reference: written out on each of ~280 operations they were half of the document's bytes.
  for (const status of errorStatusesOf(route, apiKey, upstream, own)) responses[status] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  return responses;
}

/** Every status the route can answer besides 200: its own codes' (engine/service-errors.ts) and, when it calls the upstream, the upstream table's. */
export function errorStatusesOf(route: RouteSpec, apiKey: boolean, upstream: readonly number[], table: ServiceErrorTable = SERVICE_ERRORS): string[] {
  const own = serviceCodesFor(route, table)
    .filter((code) => apiKey || !keyedOnly(code, route))
    .map((code) => table[code]!.status);
  const theirs = route.calls.length > 0 || route.plugin ? upstream : [];
  return [...new Set([...own, ...theirs])].sort((a, b) => a - b).map(String);
}

/** Codes only a service with API keys answers (the console's form counts wrong keys either way). */
function keyedOnly(code: string, route: RouteSpec): boolean {
  if (code === 'ApiKeyAttemptsExceeded') return route.key !== 'POST /console/key';
  return code === 'ApiKeyRequired' || code === 'ApiKeyScopeMissing' || code === 'ApiKeyAccountNotAllowed';
}

/** The statuses of both registries, each described by the codes that answer it. */
/** The service's own rows the manifest was loaded with (the engine's and its modules'). */
const ownErrors = (manifest: Manifest): ServiceErrorTable => manifest.serviceErrors ?? SERVICE_ERRORS;

function errorStatuses(table: ErrorTable, own: ServiceErrorTable): { upstream: number[]; descriptions: [string, string][] } {
  const byStatus = new Map<number, { own: string[]; upstream: string[] }>();
  const at = (status: number) => byStatus.get(status) ?? byStatus.set(status, { own: [], upstream: [] }).get(status)!;
  for (const code of codes(own)) at(own[code]!.status).own.push(code);
  for (const [name, row] of Object.entries(table.rows)) at(row.status).upstream.push(name);
  for (const message of table.messages) at(message.row.status);
  at(UNMAPPED_STATUS).upstream.push('any unmapped exception');
  const upstream = [...byStatus].filter(([, names]) => names.upstream.length > 0).map(([status]) => status);
  const descriptions = [...byStatus].sort(([a], [b]) => a - b).map(([status, names]): [string, string] => [String(status), describeStatus(names)]);
  return { upstream, descriptions };
}

function describeStatus(names: { own: string[]; upstream: string[] }): string {
  const parts = [];
  if (names.own.length) parts.push(`The service: ${names.own.join(', ')}`);
  if (names.upstream.length) parts.push(`The upstream: ${names.upstream.join(', ')}`);
  return parts.join('. ') + '. `exc_type` says which.';
}

const errorResponseName = (status: string): string => `Error${status}`;
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

function errorBodySchema(): SchemaObject {
  return {
    type: 'object',
    required: ['detail', 'exc_type', 'request_id'],
    properties: {
      detail: { type: 'string', description: 'What went wrong' },
      exc_type: { type: 'string', description: "Upstream exception class name, or the service's own error name" },
      hint: { type: 'string', description: 'What to do about it' },
      request_id: { type: 'string', description: 'Also in the X-Request-ID header; quote it in reports' },
      errors: {
        type: 'array',
        items: { type: 'object', required: ['param', 'problem'], properties: { param: { type: 'string' }, problem: { type: 'string' } } },
      },
      last_json: { type: 'object', additionalProperties: true, description: 'Challenge payload, for POST /auth/challenge/resolve' },
    },
  };
}

function describeService(manifest: Manifest): string {
  const rows = Object.entries(manifest.errors.rows)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([name, row]) => `| ${name} | ${row.status} | ${row.hint ?? ''} |`);
  const messages = manifest.errors.messages.map((m) => `| message contains "${m.contains}" | ${m.row.status} | ${m.row.hint ?? ''} |`);
  return [
    'REST service over the aiograpi 1.0.9 client library. Every request acts for one logged-in account named by the session ID in the `X-Session-ID` header.',
    '',
    '**Start here** (on the built-in sandbox, a simulated platform):',
    '1. **Log in as demo**: open *Auth › POST /auth/login*, click *Try it out*, then *Execute* with username ' +
      '`demo` and password `demo-password`. The answer is your session ID.',
    '2. **Authorize**: click the *Authorize* button below and paste the session ID into `SessionId`.',
    '3. **Try GET /user**: open *User › GET /user* and *Execute*; the prefilled `user_id` is an account demo follows.',
    '',
    "Every operation comes with an example request that works as shown: its ids are real in the sandbox's default world " +
      '(seed 1) as seen by demo. Mutually exclusive parameters show one of them; lists are sent as repeated fields; ' +
      'JSON fields are sent as JSON text.',
    '',
    ...errorTable(rows, messages, ownRows(ownErrors(manifest))),
  ].join('\n');
}

const ownRows = (own: ServiceErrorTable): string[] =>
  codes(own).map((code) => {
    const row = own[code]!;
    return `| ${code} | ${row.status} | ${row.when}${row.hint ? ` ${row.hint}` : ''} |`;
  });

/** Collapsed behind a link so the landing screen stays three steps and the Authorize button. */
function errorTable(rows: readonly string[], messages: readonly string[], own: readonly string[]): string[] {
  return [
    '<details><summary>Errors and their statuses</summary>',
    '',
    'Errors are JSON: `{detail, exc_type, hint?, request_id, errors?, last_json?}`; `request_id` is also in the ' +
      '`X-Request-ID` header. Invalid parameters are 422 with `errors` naming each one. An upstream exception maps ' +
      'by its class, or else by its nearest mapped base class; an unmapped one is 502 with its name in `exc_type`.',
    '',
    "| the service's own `exc_type` | status | when |",
    '|---|---|---|',
    ...own,
    '',
    '| upstream exception (and subclasses) | status | hint |',
    '|---|---|---|',
    ...rows,
    ...messages,
    '',
    '</details>',
  ];
}
