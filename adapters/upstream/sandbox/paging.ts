// Paging. A cursor names the sort key of the last item a page returned, and the next page starts
// after that key in the list as it is now: items added before the cursor and items removed
// anywhere neither repeat an item nor hide one still ahead, as the platform's max_id cursors
// behave (a position would shift under every change). Cursors stay opaque strings.
import { fail } from './errors.js';

/** A list's order: keys compare element by element, ascending (negate to put the newest first). */
export type SortKey = readonly bigint[];

/** An id as a key element; ids are digit strings, and a non-digit one sorts first. */
export const big = (value: string | number): bigint => (/^-?\d+$/.test(String(value)) ? BigInt(value) : 0n);

export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

export function writeCursor(key: SortKey): string {
  return Buffer.from(key.join('.')).toString('base64url');
}

/** null for a first page; WrongCursorError for anything this sandbox did not write. */
export function readCursor(cursor: unknown): SortKey | null {
  const text = cursor === null || cursor === undefined ? '' : String(cursor).trim();
  if (text === '') return null;
  const plain = Buffer.from(text, 'base64url').toString('utf8');
  if (!/^-?\d+(\.-?\d+)*$/.test(plain) || writeCursor(plain.split('.').map(BigInt)) !== text) fail('WrongCursorError', `Invalid cursor: ${text}`);
  return plain.split('.').map(BigInt);
}

interface Keyed<T> {
  item: T;
  key: SortKey;
}

function sortedBy<T>(items: readonly T[], keyOf: (item: T) => SortKey): Keyed<T>[] {
  return items.map((item) => ({ item, key: keyOf(item) })).sort((a, b) => compareKeys(a.key, b.key));
}

/** The whole list in its paging order (what walking every page would give). */
export function sortBy<T>(items: readonly T[], keyOf: (item: T) => SortKey): T[] {
  return sortedBy(items, keyOf).map((x) => x.item);
}

/** Index of the first entry whose key is above `key` (after the cursor). */
const firstAfter = <T>(list: readonly Keyed<T>[], key: SortKey) => {
  const at = list.findIndex((x) => compareKeys(x.key, key) > 0);
  return at < 0 ? list.length : at;
};

/** Index of the first entry whose key is at or above `key` (everything before it is before the cursor). */
const firstFrom = <T>(list: readonly Keyed<T>[], key: SortKey) => {
  const at = list.findIndex((x) => compareKeys(x.key, key) >= 0);
  return at < 0 ? list.length : at;
};

/** One page of up to `size` items after the cursor, and the cursor of the next page ('' at the end). */
/**
 * A list's sorted order kept between pages while its `version` holds, for the big lists (50,000
 * followers) whose sort would otherwise cost every page more than the rest of the call.
 */
export interface SortMemo {
  readonly owner: object;
  readonly version: string;
}
const sorted = new WeakMap<object, { version: string; list: Keyed<unknown>[] }>();

export function pageBy<T>(
  items: readonly T[] | (() => readonly T[]),
  keyOf: (item: T) => SortKey,
  cursor: unknown,
  size: number,
  memo?: SortMemo,
): [T[], string] {
  const list = memoSorted(items, keyOf, memo);
  const from = readCursor(cursor);
  const start = from ? firstAfter(list, from) : 0;
  const slice = list.slice(start, start + Math.max(1, size));
  const more = start + slice.length < list.length;
  return [slice.map((x) => x.item), more && slice.length ? writeCursor(slice[slice.length - 1].key) : ''];
}

function memoSorted<T>(items: readonly T[] | (() => readonly T[]), keyOf: (item: T) => SortKey, memo?: SortMemo): Keyed<T>[] {
  const kept = memo && sorted.get(memo.owner);
  if (kept && kept.version === memo.version) return kept.list as Keyed<T>[];
  const list = sortedBy(typeof items === 'function' ? items() : items, keyOf);
  if (memo) sorted.set(memo.owner, { version: memo.version, list });
  return list;
}

export interface Window<T> {
  readonly items: T[];
  /** Cursor of the items before this window ('' when none): pass it back as the "before" cursor. */
  readonly before: string;
  /** Cursor of the items after this window ('' when none): pass it back as the "after" cursor. */
  readonly after: string;
}

/** A window for lists paged both ways: after one cursor, or the `size` items just before another. */
export function windowBy<T>(items: readonly T[], keyOf: (item: T) => SortKey, cursors: { after?: unknown; before?: unknown }, size: number): Window<T> {
  const list = sortedBy(items, keyOf);
  const afterKey = readCursor(cursors.after);
  const beforeKey = afterKey ? null : readCursor(cursors.before);
  const count = Math.max(1, size);
  let start = afterKey ? firstAfter(list, afterKey) : 0;
  let end = Math.min(list.length, start + count);
  if (beforeKey) {
    end = firstFrom(list, beforeKey);
    start = Math.max(0, end - count);
  }
  const slice = list.slice(start, end);
  if (!slice.length) return { items: [], before: '', after: '' };
  return {
    items: slice.map((x) => x.item),
    before: start > 0 ? writeCursor(slice[0].key) : '',
    after: end < list.length ? writeCursor(slice[slice.length - 1].key) : '',
  };
}

/** First `amount` items (0 or less: all), as the upstream's amount parameters mean. */
export function take<T>(items: readonly T[], amount: number): T[] {
  return amount > 0 ? items.slice(0, amount) : items.slice();
}

/** Items after the one with pk `after` (0 or '': from the start), up to `amount`. */
export function after<T extends { pk: string }>(items: readonly T[], afterPk: unknown, amount: number): T[] {
  const key = afterPk === null || afterPk === undefined ? '' : String(afterPk);
  const start = key === '' || key === '0' ? 0 : items.findIndex((item) => item.pk === key) + 1;
  return take(items.slice(start), amount);
}
