// Content checks by the bytes, not the name or the client's Content-Type: file-type reads the
// first few kilobytes of the file only.
import { rename } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { describeKind, kindOfMime, mimeFitsKind, type ContentKind } from './kinds.js';

export interface Sniffed {
  /** Detected media type; undefined when the bytes match no known format. */
  readonly mime?: string;
  /** Detected extension, without the dot. */
  readonly ext?: string;
  /** image, video or audio, when the media type is one the platform takes. */
  readonly kind?: 'image' | 'video' | 'audio';
}

export type KindVerdict = { readonly ok: true; readonly sniffed: Sniffed } | { readonly ok: false; readonly sniffed: Sniffed; readonly problem: string };

export async function sniffFile(file: string): Promise<Sniffed> {
  const type = await fileTypeFromFile(file);
  if (type === undefined) return {};
  return { mime: type.mime, ext: type.ext, kind: kindOfMime(type.mime) };
}

/** Whether a file's bytes are of the declared kind; the problem text is for a 422 on its field. */
export async function checkKind(file: string, kind: ContentKind): Promise<KindVerdict> {
  const sniffed = await sniffFile(file);
  if (mimeFitsKind(sniffed.mime, kind)) return { ok: true, sniffed };
  const found = sniffed.mime === undefined ? 'content of an unrecognised type' : sniffed.mime;
  return { ok: false, sniffed, problem: `expected ${describeKind(kind)}, got ${found}` };
}

/**
 * Give a temp file the extension of its content. The upstream decides by suffix in places (an
 * album item is a photo or a video by its extension) and multer's names have none.
 */
export async function withExtension(file: string, ext: string | undefined): Promise<string> {
  if (ext === undefined || file.toLowerCase().endsWith(`.${ext}`)) return file;
  const named = `${file}.${ext}`;
  await rename(file, named);
  return named;
}
