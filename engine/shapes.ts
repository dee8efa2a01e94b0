// Result-shape registry: each shape is a small pure function from what the upstream returned to
// the response body, plus the documented schema of that body. Chosen by `result.shape`.
import { serviceError } from './service-errors.js';
import type { InputBag, JsonSchema, ShapeEntry } from './types.js';

type SchemaArgs = { readonly items?: JsonSchema; readonly schema?: JsonSchema };
const anyObject: JsonSchema = { type: 'object', additionalProperties: true };
const itemsOf = (args: SchemaArgs): JsonSchema => args.items ?? anyObject;

function asTuple(value: unknown, size: number, shape: string): unknown[] {
  if (!Array.isArray(value) || value.length < size) {
    throw serviceError('UpstreamShapeError', `upstream returned no ${shape} tuple`);
  }
  return value;
}

const page: ShapeEntry = {
  paging: { param: 'cursor', field: 'next_cursor' },
  shape: (value) => {
    const [items, cursor] = asTuple(value, 2, 'page');
    return { items, next_cursor: cursor == null ? '' : String(cursor) };
  },
  schema: (args) => ({
    type: 'object',
    required: ['items', 'next_cursor'],
    properties: {
      items: { type: 'array', items: itemsOf(args) },
      next_cursor: { type: 'string', description: 'Pass as `cursor` for the next page; empty when there is none.' },
    },
    additionalProperties: false,
  }),
};

const streamPage: ShapeEntry = {
  paging: { param: 'max_id', field: 'max_cursor' },
  shape: (value) => {
    const [items, min, max] = asTuple(value, 3, 'stream page');
    return { items, min_cursor: min == null ? '' : String(min), max_cursor: max == null ? '' : String(max) };
  },
  schema: (args) => ({
    type: 'object',
    required: ['items', 'min_cursor', 'max_cursor'],
    properties: {
      items: { type: 'array', items: itemsOf(args) },
      min_cursor: { type: 'string', description: 'Pass as `min_id` to page one way.' },
      max_cursor: { type: 'string', description: 'Pass as `max_id` to page the other way.' },
    },
    additionalProperties: false,
  }),
};

const array: ShapeEntry = {
  // Some upstream lists arrive keyed by pk; clients asked for arrays, so keep the values.
  shape: (value) => (Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : []),
  schema: (args) => ({ type: 'array', items: itemsOf(args) }),
};

const object: ShapeEntry = {
  shape: (value) => value ?? {},
  schema: (args) => args.schema ?? anyObject,
};

const raw: ShapeEntry = {
  shape: (value) => value ?? {},
  schema: () => ({ type: 'object', additionalProperties: true, description: 'Raw upstream payload; its fields vary by surface and cursor state.' }),
};

const bool: ShapeEntry = {
  shape: (value) => value === true || value === 'true' || value === 1,
  schema: () => ({ type: 'boolean' }),
};

const string: ShapeEntry = {
  shape: (value) => (value == null ? '' : String(value)),
  schema: (args) => args.schema ?? { type: 'string' },
};

const tuple: ShapeEntry = {
  shape: (value, spec) => {
    const keys = (spec.options.keys as string[] | undefined) ?? [];
    const values = asTuple(value, keys.length, 'tuple');
    return Object.fromEntries(keys.map((key, index) => [key, values[index]]));
  },
  schema: (args) => args.schema ?? anyObject,
};

const compose: ShapeEntry = {
  shape: (_value, spec, bag) => {
    const fields = (spec.options.fields as Record<string, string> | undefined) ?? {};
    return Object.fromEntries(Object.entries(fields).map(([key, path]) => [key, pick(bag, path)]));
  },
  schema: (args) => args.schema ?? anyObject,
};

/** One item of a list: the first whose fields equal the named inputs (ids compared as strings). */
const find: ShapeEntry = {
  shape: (value, spec, bag) => {
    const fields = Object.entries((spec.options.fields as Record<string, string> | undefined) ?? {});
    const items = Array.isArray(value) ? value : [];
    const match = items.find((item) => fields.every(([key, input]) => String((item as Record<string, unknown>)?.[key]) === String(pick(bag, input))));
    if (match === undefined) {
      const wanted = fields.map(([key, input]) => `${key} ${JSON.stringify(pick(bag, input))}`).join(', ');
      throw serviceError('NothingMatches', `Nothing matches ${wanted}`);
    }
    return match;
  },
  schema: (args) => args.schema ?? anyObject,
};

/** A body the manifest states outright, for routes that need no upstream call. */
const constant: ShapeEntry = {
  shape: (_value, spec) => structuredClone(spec.options.value),
  schema: (args) => args.schema ?? anyObject,
};

const textOf = (contentType: string): ShapeEntry => ({
  shape: (value) => (value == null ? '' : String(value)),
  schema: () => ({ type: 'string' }),
  body: 'text',
  contentType,
});

/** A live event stream (server-sent events) the plugin opened: the responder pipes it as it comes. */
const events: ShapeEntry = {
  shape: (value) => {
    if (!value || typeof value !== 'object' || (value as { kind?: unknown }).kind !== 'stream') throw new TypeError('the events shape needs a stream');
    return value;
  },
  schema: () => ({ type: 'string', description: 'Server-sent events (text/event-stream): `event:` and `data:` lines, one JSON document per event.' }),
  body: 'stream',
  contentType: 'text/event-stream',
};

/**
 * The path of the file the upstream wrote, sent as it is (the responder streams it and removes it).
 * A plugin may answer a file or stream of its own: that passes through.
 */
const file: ShapeEntry = {
  shape: (value, _spec, _bag, files) => (typeof value === 'string' ? files.file(value) : value),
  schema: () => ({ type: 'string', format: 'binary' }),
  body: 'file',
  contentType: 'application/octet-stream',
};

/** Several files the upstream wrote (an album), sent as one zip built while it streams. */
const files: ShapeEntry = {
  shape: (value, _spec, _bag, maker) => (Array.isArray(value) ? maker.zip(value.map(String)) : value),
  schema: () => ({ type: 'string', format: 'binary' }),
  body: 'file',
  contentType: 'application/zip',
};

export const shapes: Readonly<Record<string, ShapeEntry>> = Object.freeze({
  page,
  stream_page: streamPage,
  array,
  object,
  raw,
  bool,
  string,
  tuple,
  compose,
  find,
  constant,
  text: textOf('text/plain; charset=utf-8'),
  html: textOf('text/html; charset=utf-8'),
  events,
  file,
  files,
});

export function pick(bag: InputBag, path: string): unknown {
  let value: unknown = bag;
  for (const key of path.split('.')) {
    if (value == null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
