// Job kinds, derived from the manifest: every route whose result is a cursor page is a job kind,
// with no list kept by hand. The shape says where the next cursor is and which parameter takes it
// back (page: next_cursor → cursor; stream_page: max_cursor → max_id); the item schema says the
// primary key items are deduplicated by and the CSV columns.
import { createHash } from 'node:crypto';
import { shapes } from '../../engine/shapes.js';
import type { JsonSchema, RouteSpec } from '../../engine/types.js';

export interface JobKind {
  readonly route: RouteSpec;
  /** The parameter a page's cursor goes back into. */
  readonly cursorParam: string;
  /** The body field holding the next page's cursor. */
  readonly cursorField: string;
  /** The page-size parameter and its largest value: a job asks for full pages. */
  readonly amount?: { readonly param: string; readonly max: number };
  /** The item field that identifies an item (`pk`, else `id`); undefined: the whole item is its key. */
  readonly keyField?: string;
  /** CSV columns: the item schema's fields, nested ones flattened with dotted names. */
  readonly columns: readonly string[];
}

const KEY_FIELDS = ['pk', 'id'];

export function jobKinds(routes: readonly RouteSpec[], schemas: Readonly<Record<string, JsonSchema>>): ReadonlyMap<string, JobKind> {
  const kinds = new Map<string, JobKind>();
  for (const route of routes) {
    const kind = kindOf(route, schemas);
    if (kind) kinds.set(route.key, kind);
  }
  return kinds;
}

function kindOf(route: RouteSpec, schemas: Readonly<Record<string, JsonSchema>>): JobKind | undefined {
  const paging = shapes[route.result.shape]?.paging;
  if (!paging || route.method !== 'GET' || !route.params.some((p) => p.name === paging.param)) return undefined;
  const item = deref(route.result.options.items as JsonSchema | undefined, schemas) ?? {};
  const required = (item.required as string[] | undefined) ?? [];
  const amount = route.params.find((p) => p.name === 'amount' && typeof p.schema.maximum === 'number');
  return Object.freeze({
    route,
    cursorParam: paging.param,
    cursorField: paging.field,
    amount: amount ? { param: amount.name, max: amount.schema.maximum as number } : undefined,
    keyField: KEY_FIELDS.find((field) => required.includes(field)),
    columns: Object.freeze(columnsOf(item, schemas, '', 0)),
  });
}

function deref(schema: JsonSchema | undefined, schemas: Readonly<Record<string, JsonSchema>>): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (typeof ref === 'string') return schemas[ref.split('/').pop()!];
  return schema;
}

/** Scalars and arrays are columns; objects with declared properties open into dotted columns (two levels deep). */
function columnsOf(schema: JsonSchema, schemas: Readonly<Record<string, JsonSchema>>, prefix: string, depth: number): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const columns: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const property = deref(raw, schemas) ?? {};
    const nested = property.properties && depth < 2 ? columnsOf(property, schemas, `${prefix}${name}.`, depth + 1) : [];
    if (nested.length) columns.push(...nested);
    else columns.push(prefix + name);
  }
  return columns;
}

/** An item's identity within a job: its primary key, or a digest of the whole item. */
export function itemKey(kind: JobKind, item: unknown): string {
  const value = kind.keyField && item && typeof item === 'object' ? (item as Record<string, unknown>)[kind.keyField] : undefined;
  if (value !== undefined && value !== null && value !== '') return String(value);
  return 'h:' + createHash('sha256').update(JSON.stringify(item)).digest('base64url').slice(0, 22);
}
