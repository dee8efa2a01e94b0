// Downloads write real small files (JPEG, MP4, MP3) into the folder the caller gives (the engine's
// private temp folder) and return their paths. By-URL downloads never use the network: they serve
// the world's own media URLs and refuse anything else.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { list, str } from '../args.js';
import { fail } from '../errors.js';
import { EXTENSION, parseMediaUrl, sandboxFileBytes, type FileKind } from '../files.js';
import { findMedia, findStory } from '../lookup.js';
import type { Args, Ctx, MethodDef, MethodTable } from '../registry.js';
import type { MediaKind, MediaRec } from '../world/types.js';

function folderOf(a: Args): string {
  const folder = str(a.folder ?? '', 'folder');
  if (!folder) fail('ValueError', 'folder is required: the sandbox writes downloads only into a folder the caller names');
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** Writes bytes under folder; a caller's filename is reduced to its base name so it cannot escape. */
function write(folder: string, name: string, kind: FileKind, key: string): string {
  const safe = basename(name).replace(/\.[A-Za-z0-9]{1,4}$/, '') || key;
  const path = join(folder, `${safe}.${EXTENSION[kind]}`);
  writeFileSync(path, sandboxFileBytes(kind, key));
  return path;
}

const owner = (ctx: Ctx, m: MediaRec) => ctx.world.users.get(m.owner)!.username;

function byPk(kinds: readonly MediaKind[], kind: FileKind, what: string): MethodDef {
  return {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_pk);
      if (!kinds.includes(m.kind)) fail('ClientBadRequestError', `Must been ${what}`);
      return write(folderOf(a), `${owner(ctx, m)}_${m.pk}`, kind, m.pk);
    },
  };
}

function fromUrl(ctx: Ctx, url: string, folder: string, filename: string, expect: FileKind | null): string {
  const parsed = parseMediaUrl(url);
  if (!parsed) fail('ClientNotFoundError', `The sandbox serves only its own media URLs (https://media.sandbox.invalid/...), not ${url}`);
  const { kind, key } = parsed!;
  if (expect && kind !== expect) fail('ClientBadRequestError', `Expected a ${expect} URL, got ${url}`);
  if (!keyExists(ctx, key)) fail('ClientNotFoundError', `404 Not Found: ${url}`);
  return write(folder, filename || key, kind, key);
}

/** World URLs name a media, story, child, user picture (u<pk>v<n>) or track (t<id>). */
function keyExists(ctx: Ctx, key: string): boolean {
  const w = ctx.world;
  if (w.media.has(key) || w.stories.has(key)) return true;
  if (/^u\d+v\d+$/.test(key)) return w.users.has(key.slice(1).split('v')[0]);
  if (/^t\d+$/.test(key)) return w.tracks.has(key.slice(1));
  for (const m of w.media.values()) if (m.children.some((c) => c.pk === key)) return true;
  return /^\d+$/.test(key) && [...w.messages.values()].some((m) => m.id === key || m.ref === key);
}

function byUrl(expect: FileKind | null): MethodDef {
  return { run: (ctx, a) => fromUrl(ctx, str(a.url, 'url'), folderOf(a), str(a.filename ?? ''), expect) };
}

export const downloadMethods: MethodTable = {
  photo_download: byPk(['photo'], 'jpeg', 'photo'),
  video_download: byPk(['video', 'clip', 'igtv'], 'mp4', 'video'),
  clip_download: byPk(['clip'], 'mp4', 'clip'),
  igtv_download: byPk(['igtv'], 'mp4', 'igtv'),
  album_download: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_pk);
      if (m.kind !== 'album') fail('ClientBadRequestError', 'Must been album');
      const folder = folderOf(a);
      return m.children.map((c) => write(folder, `${owner(ctx, m)}_${c.pk}`, c.video ? 'mp4' : 'jpeg', c.pk));
    },
  },
  story_download: {
    run(ctx, a) {
      const s = findStory(ctx, a.story_pk);
      const name = str(a.filename ?? '') || `${ctx.world.users.get(s.owner)!.username}_${s.pk}`;
      return write(folderOf(a), name, s.video ? 'mp4' : 'jpeg', s.pk);
    },
  },
  photo_download_by_url: byUrl('jpeg'),
  video_download_by_url: byUrl('mp4'),
  clip_download_by_url: byUrl('mp4'),
  igtv_download_by_url: byUrl('mp4'),
  story_download_by_url: byUrl(null),
  track_download_by_url: byUrl('mp3'),
  album_download_by_urls: {
    run(ctx, a) {
      const folder = folderOf(a);
      return list(a.urls).map((url) => fromUrl(ctx, str(url, 'url'), folder, '', null));
    },
  },
};
