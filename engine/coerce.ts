// Coercion registry: each parameter type is a small pure function from the raw string(s) a client
// sent to the typed value the validator and the upstream see. Chosen by the param's type tag.
import { CoercionError, type ParamSpec } from './types.js';

type Scalar = (raw: string, param: ParamSpec) => unknown;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// Ids stay strings even when all digits: pks exceed 2^53 and are opaque to clients.
const id: Scalar = (raw) => raw.trim();

const string: Scalar = (raw) => raw;

const integer: Scalar = (raw) => {
  const text = raw.trim();
  if (!INTEGER.test(text)) throw new CoercionError(`must be an integer, got ${quote(raw)}`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new CoercionError(`integer out of range: ${quote(raw)}`);
  return value;
};

const number: Scalar = (raw) => {
  const text = raw.trim();
  if (!NUMBER.test(text)) throw new CoercionError(`must be a number, got ${quote(raw)}`);
  return Number(text);
};

const boolean: Scalar = (raw) => {
  const text = raw.trim().toLowerCase();
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw new CoercionError(`must be a boolean (true or false), got ${quote(raw)}`);
};

const json: Scalar = (raw) => {
  try {
    return JSON.parse(raw);
  } catch {
    throw new CoercionError(`must be JSON-encoded, got ${quote(raw)}`);
  }
};

const file: Scalar = (raw) => raw; // the engine puts the temp file path here

export const scalarCoercers: Readonly<Record<string, Scalar>> = Object.freeze({
  string,
  id,
  integer,
  number,
  boolean,
  json,
  url: string,
  file,
});

/** Turns all raw values of one parameter into its value: a scalar, or an array when repeated. */
export function coerceParam(raw: readonly string[], param: ParamSpec): unknown {
  const scalar = scalarCoercers[param.coerce];
  if (!scalar) throw new CoercionError(`no coercer for type ${param.coerce}`);
  if (!param.repeated) {
    if (raw.length > 1) throw new CoercionError('given more than once; it takes one value');
    return scalar(raw[0], param);
  }
  if (param.coerce === 'json') return jsonList(raw);
  return raw.map((one) => scalar(one, param));
}

/**
 * A repeated JSON field accepts one JSON array, or repeated JSON values (one object per field),
 * because form clients in other languages send either.
 */
export function jsonList(raw: readonly string[]): unknown[] {
  const values = raw.filter((one) => one.trim() !== '').map((one) => json(one, undefined as never));
  if (values.length === 1 && Array.isArray(values[0])) return values[0] as unknown[];
  return values.flatMap((value) => (Array.isArray(value) ? value : [value]));
}

function quote(raw: string): string {
  return JSON.stringify(raw.length > 40 ? raw.slice(0, 40) + '…' : raw);
}
