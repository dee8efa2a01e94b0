// Jobs page with the library's async iterators where the running library has them (its
// capabilities name them: never a version string), through the chunk methods otherwise.
//
// The iterators (aiograpi 1.12: iter_user_followers_v1, iter_user_medias, iter_hashtag_medias) take
// no start cursor and hand none out. So a job reads one as a server-side cursor (the sidecar keeps
// the generator; CallOptions.page) only while it runs in this process: a page from it is the chunk
// page a route shapes, with no cursor to save. After a restart (or a sidecar that lost its cursor)
// the job goes on through the chunk method the iterator walks, from its first page, since the
// iterator left no cursor: the items it already holds are not added again (items are keyed), and
// those pages do not count as stale. The cost, once: the pages already collected are read again
// (items ÷ page size upstream calls); from then on the chunk cursor is saved after every page, so a
// later restart costs nothing more.
import type { ClientVia, IteratorPage } from '../../engine/types.js';
import type { JobKind } from './kinds.js';

interface IteratorSpec {
  readonly name: string;
  /** The chunk method's keywords the iterator takes too (not its cursor, not its page size). */
  readonly passed: readonly string[];
  /** The chunk method's page-size keyword: a page read from the iterator is that many items. */
  readonly size: string;
}

/** The chunk methods jobs page with, and the iterator that walks each. */
export const ITERATORS: Readonly<Record<string, IteratorSpec>> = {
  user_followers_v1_chunk: { name: 'iter_user_followers_v1', passed: ['user_id'], size: 'max_amount' },
  user_medias_paginated_v1: { name: 'iter_user_medias', passed: ['user_id'], size: 'amount' },
  hashtag_medias_v1_chunk: { name: 'iter_hashtag_medias', passed: ['name', 'tab_key'], size: 'max_amount' },
};

/** Marks a page read from an iterator that goes on: the route's shaper needs a cursor; the job saves none. */
const MORE = 'iterator';
const CURSOR_GONE = 'SidecarCursorGone';

/** One page's reading through an iterator: the wrapper for the route's run, and what it found. */
export interface IteratorRun {
  readonly via: ClientVia;
  /** After the run: whether the iterator is spent, and whether its cursor was gone (the page came from the chunk method). */
  readonly outcome: () => { readonly done: boolean; readonly gone: boolean };
}

export class IteratorPaging {
  /** Open iterator cursors by job id: in this process only, as the sidecar's are. */
  private readonly open = new Map<string, string>();

  constructor(private readonly available: () => readonly string[]) {}

  /**
   * The iterator a job's next page is read from, or undefined for the chunk method: a job reads an
   * iterator from its first page on, while this process holds its cursor.
   */
  runFor(job: { readonly id: string; readonly pages: number; readonly paging?: string }, kind: JobKind, size: number): IteratorRun | undefined {
    if (job.paging === 'chunks') return undefined;
    const spec = kind.route.calls.map((call) => ({ chunk: call.method, spec: ITERATORS[call.method] })).find((found) => found.spec);
    if (!spec || !this.available().includes(spec.spec.name)) return undefined;
    const cursor = this.open.get(job.id);
    if (job.pages > 0 && cursor === undefined) return undefined;
    let done = false;
    let gone = false;
    const via: ClientVia = (client) => ({
      call: async (method, kwargs, opts) => {
        if (method !== spec.chunk) return client.call(method, kwargs, opts);
        try {
          const paging = { ...opts, page: { cursor, size: sizeOf(spec.spec, kwargs, size) } };
          const page = (await client.call(spec.spec.name, passedOf(spec.spec, kwargs), paging)) as IteratorPage;
          done = !page.cursor;
          if (page.cursor) this.open.set(job.id, page.cursor);
          else this.open.delete(job.id);
          return [page.items, done ? '' : MORE];
        } catch (error) {
          if (!isCursorGone(error)) throw error;
          gone = true;
          this.open.delete(job.id);
          return client.call(method, kwargs, opts); // the first chunk page, in the same run
        }
      },
    });
    return { via, outcome: () => ({ done, gone }) };
  }

  /** A job that ended or was cancelled: its cursor is left to the sidecar's bound (the oldest go first). */
  forget(jobId: string): void {
    this.open.delete(jobId);
  }
}

function passedOf(spec: IteratorSpec, kwargs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(spec.passed.filter((name) => kwargs[name] !== undefined).map((name) => [name, kwargs[name]]));
}

function sizeOf(spec: IteratorSpec, kwargs: Readonly<Record<string, unknown>>, fallback: number): number {
  const given = Number(kwargs[spec.size]);
  return Number.isInteger(given) && given > 0 ? given : fallback;
}

function isCursorGone(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { excType?: unknown }).excType === CURSOR_GONE;
}
