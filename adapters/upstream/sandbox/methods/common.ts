// Helpers the method tables share.
import { existsSync, statSync } from 'node:fs';
import { str } from '../args.js';
import { fail } from '../errors.js';
import { big, type SortKey } from '../paging.js';
import { media, shownMedia } from '../records.js';
import { mediaNote } from '../records-direct.js';
import type { Ctx } from '../registry.js';
import type { MediaRec } from '../world/types.js';

export const mediaOut = (ctx: Ctx, m: MediaRec) => media(ctx.world, m, ctx.me().pk);
export const mediaList = (ctx: Ctx, pks: readonly string[]) =>
  pks.flatMap((pk) => {
    const m = ctx.world.media.get(pk);
    return m ? [mediaOut(ctx, m)] : [];
  });

/**
 * A media as the platform's raw payloads (feeds, explore) carry it: beside the record's fields,
 * the notes people left on it, which aiograpi's Media record does not keep.
 */
export function rawMedia(ctx: Ctx, m: MediaRec): Record<string, unknown> {
  const notes = [...ctx.world.mediaNotes.values()].filter((n) => n.media === m.pk).sort((a, b) => b.createdAt - a.createdAt);
  return { ...mediaOut(ctx, m), media_notes: { items: notes.map((n) => mediaNote(ctx.world, n)) } };
}

export const rawMediaList = (ctx: Ctx, pks: readonly string[]) =>
  pks.flatMap((pk) => {
    const m = ctx.world.media.get(pk);
    return m ? [rawMedia(ctx, m)] : [];
  });

/** Visible feed media: not archived (archived posts only show in the owner's archive). */
export const visible = (ctx: Ctx, pks: readonly string[]) => shownMedia(ctx.world, pks);

/** Media lists run newest first; same-second posts by pk, the later-created first. */
export const newestFirst =
  (ctx: Ctx) =>
  (pk: string): SortKey => [-BigInt(ctx.world.media.get(pk)?.takenAt ?? 0), -big(pk)];

/** Reads an upload's path the way the upstream does: a missing or empty file fails the upload. */
export function uploadFile(value: unknown, excType: string, what = 'file'): string {
  const path = str(value, 'path');
  if (!path || !existsSync(path) || !statSync(path).isFile() || statSync(path).size === 0) fail(excType, `${what} not found or empty: ${path}`);
  return path;
}

/** Inserts pk at the front without duplicates (most recent first lists). */
export function pushFront(list: string[], pk: string): void {
  const at = list.indexOf(pk);
  if (at >= 0) list.splice(at, 1);
  list.unshift(pk);
}

export function remove(list: string[], pk: string): boolean {
  const at = list.indexOf(pk);
  if (at >= 0) list.splice(at, 1);
  return at >= 0;
}

/** Runs for its effect (already evaluated as the argument) and answers what the upstream returns. */
export const andReturn = <T>(_effect: unknown, result: T): T => result;
