// Argument coercion the way Python callers pass values: ids as str or int, lists as lists or a
// JSON string, booleans as bools or their common spellings.
import { typeError } from './errors.js';

export function str(value: unknown, name = 'value'): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return typeError(`${name} must be str, not ${pyType(value)}`);
}

export function optStr(value: unknown): string | null {
  return value === null || value === undefined ? null : str(value);
}

/** An id: a string or an integer; surrounding spaces dropped. */
export function id(value: unknown, name = 'id'): string {
  return str(value, name).trim();
}

export function int(value: unknown, name = 'value'): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeError(`${name} must be int, not ${pyType(value)}`);
}

export function optInt(value: unknown, fallback: number): number {
  return value === null || value === undefined || value === '' ? fallback : int(value);
}

export function num(value: unknown, name = 'value'): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n === 'number' && Number.isFinite(n)) return n;
  return typeError(`${name} must be float, not ${pyType(value)}`);
}

export function bool(value: unknown): boolean {
  if (typeof value === 'string') return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
  return Boolean(value);
}

export function list(value: unknown): unknown[] {
  if (value === null || value === undefined || value === '') return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && value.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: a single value
    }
  }
  return [value];
}

export function ids(value: unknown, name = 'ids'): string[] {
  return list(value).map((item) => id(item, name));
}

export function record(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') {
    try {
      return record(JSON.parse(value));
    } catch {
      return typeError(`expected a dict, got str`);
    }
  }
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return typeError(`expected a dict, got ${pyType(value)}`);
}

export function records(value: unknown): Record<string, unknown>[] {
  return list(value).map((item) => record(item) ?? {});
}

function pyType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'dict';
  return { string: 'str', number: 'float', boolean: 'bool' }[typeof value as string] ?? typeof value;
}
