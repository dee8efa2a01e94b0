// The shapes of manifest YAML as written (before normalisation). Only the loader reads these.
import type { ActionClass, JsonSchema, JsonValue } from '../types.js';

export interface RawParam {
  type?: string;
  in?: 'query' | 'form' | 'file';
  required?: boolean;
  repeated?: boolean;
  since?: string;
  default?: JsonValue;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  enum?: JsonValue[];
  schema?: JsonSchema | string;
  upstream?: string | false;
  description?: string;
}

export interface RawCall {
  method: string;
  when?: Record<string, JsonValue>;
  args?: string[] | Record<string, string | { const: JsonValue }>;
  as?: string;
}

export interface RawRoute {
  route: string;
  /** The OpenAPI tag when not the file's own (one some area file declares). */
  tag?: string;
  summary: string;
  description?: string;
  /** The upstream library version that added the route (beyond the specification's aiograpi). */
  since?: string;
  session?: 'required' | 'optional' | 'none';
  /** The action class (default: read for GET, the file's `action` for writes). */
  action?: ActionClass;
  /** How a write whose answer was lost is read back: a named check or `none` (default: the file's). */
  reconcile?: string;
  /** In the MCP core tool set. */
  core?: boolean;
  scope?: 'read' | 'write' | 'operator' | 'none';
  owns?: 'job' | 'webhook' | 'pool' | 'write';
  /** Beyond the specification's endpoint catalogue. */
  extension?: boolean;
  upstream_only?: string;
  plugin?: string;
  upstream?: string;
  calls?: RawCall[];
  params?: Record<string, RawParam>;
  exactly_one?: string[][];
  at_least_one?: string[][];
  at_most_one?: string[][];
  resolve?: { by: string; from: string[]; into: string }[];
  rules?: JsonSchema[];
  /** The example request: parameter name → value (decoded for json parameters). */
  example?: Record<string, JsonValue>;
  result: {
    shape: string;
    items?: string | JsonSchema;
    schema?: string | JsonSchema;
    from?: string;
    fields?: Record<string, string>;
    keys?: string[];
    content_type?: string;
    description?: string;
    value?: JsonValue;
    status?: number;
  };
}

export interface RawErrors {
  hierarchy: Record<string, string[]>;
  rows: Record<string, { status: number; hint?: string; detail?: string; retry_after?: number; session?: 'challenge' | 'freeze' }>;
  messages?: { contains: string; exc_type?: string; status: number; hint?: string; detail?: string; retry_after?: number }[];
}

export interface RawFile {
  file: string;
  doc: {
    format: 1;
    area?: string;
    /** The service's own area (its records, not the platform's). */
    own?: boolean;
    /** The class of the area's writes where a route names none. */
    action?: ActionClass;
    /** The read-back check of the area's writes where a route names none (`none`: no natural check). */
    reconcile?: string;
    tag?: { name: string; description?: string };
    tags?: { name: string; description?: string }[];
    routes?: RawRoute[];
    schemas?: Record<string, JsonSchema>;
    errors?: RawErrors;
  };
}
