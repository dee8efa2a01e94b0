// The async iterators aiograpi 1.12 added (iter_user_followers_v1, iter_user_medias,
// iter_hashtag_medias), played when the sandbox plays 1.12.13. Each walks its chunk method from
// the first page, as the library's do (they take no start cursor and hand none out), and is read a
// page of items at a time as a server-side cursor (CallOptions.page), as the sidecar reads the
// real ones (sidecar_cursors.py). A cursor lives as long as its client: asked for after that, it
// is SidecarCursorGone, as the sidecar answers after a restart.
import type { IteratorPage } from '../../../../engine/types.js';
import { int } from '../args.js';
import { fail } from '../errors.js';
import type { Args, MethodTable } from '../registry.js';

interface Walk {
  /** The chunk method walked, the keyword its cursor goes in, and the keywords passed on to it. */
  readonly method: string;
  readonly cursor: string;
  readonly passed: readonly string[];
  /** The iterator's keyword for the most items (0: all). */
  readonly limit: string;
}

export const WALKS: Readonly<Record<string, Walk>> = {
  iter_user_followers_v1: { method: 'user_followers_v1_chunk', cursor: 'max_id', passed: ['user_id'], limit: 'max_amount' },
  iter_user_medias: { method: 'user_medias_paginated_v1', cursor: 'end_cursor', passed: ['user_id'], limit: 'amount' },
  iter_hashtag_medias: { method: 'hashtag_medias_v1_chunk', cursor: 'max_id', passed: ['name', 'tab_key'], limit: 'amount' },
};

/** Called without a page, an iterator is a Python async generator: nothing a JSON answer can carry. */
export const iteratorMethods: MethodTable = Object.fromEntries(
  Object.keys(WALKS).map((name) => [name, { run: () => fail('TypeError', `${name}() is an async iterator: read it a page at a time`) }]),
);

const GONE = "the iterator's cursor is gone (the client was reopened); read on through the chunk method";

/** Runs one chunk method for the walk (through the client's registry, with the current call's context). */
export type ChunkRunner = (method: string, kwargs: Args) => unknown;

/** One client's open iterators. */
export class Cursors {
  private readonly open = new Map<string, Iterator<unknown>>();
  private serial = 0;
  /** The chunk runner of the page being read: a walk's later chunks run in the context of the call that asks for them. */
  private current?: ChunkRunner;

  page(method: string, args: Args, page: { readonly cursor?: string; readonly size: number }, run: ChunkRunner): IteratorPage {
    this.current = run;
    let cursor = page.cursor;
    if (cursor === undefined) {
      const walk = WALKS[method] ?? fail('SidecarProtocolError', `${method} is not an async iterator: only those are read a page at a time`);
      cursor = `c${++this.serial}`;
      this.open.set(
        cursor,
        walked(walk, args, () => this.current!),
      );
    }
    const iterator = this.open.get(cursor) ?? fail('SidecarCursorGone', GONE);
    const items: unknown[] = [];
    while (items.length < Math.max(1, page.size)) {
      const next = iterator.next();
      if (next.done) {
        this.open.delete(cursor);
        return { items };
      }
      items.push(next.value);
    }
    return { items, cursor };
  }
}

/** The chunk method's pages in order, item by item, until its cursor comes back empty or the limit is reached. */
function* walked(walk: Walk, args: Args, run: () => ChunkRunner): Generator<unknown> {
  const limit = int(args[walk.limit] ?? 0);
  const passed = Object.fromEntries(walk.passed.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  let cursor = '';
  let given = 0;
  for (;;) {
    const [items, next] = run()(walk.method, { ...passed, [walk.cursor]: cursor }) as [unknown[], string];
    for (const item of items) {
      yield item;
      if (limit > 0 && ++given >= limit) return;
    }
    if (!next || next === cursor) return;
    cursor = next;
  }
}
