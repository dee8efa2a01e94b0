// The kinds of content an upload or fetched file may be, and the media types that count as each.
// Allow-lists, not prefixes: `image/` also covers Photoshop files and icons the platform refuses.

import { CONTENT_KINDS, type ContentKind } from '../../engine/types.js';

export { CONTENT_KINDS, type ContentKind };

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'image/avif', 'image/gif', 'image/bmp', 'image/tiff']);
const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/x-m4v', 'video/webm', 'video/x-matroska', 'video/3gpp', 'video/3gpp2', 'video/x-msvideo']);
const AUDIO_TYPES = new Set([
  'audio/mp4',
  'audio/x-m4a',
  'audio/mpeg',
  'audio/aac',
  'audio/ogg',
  'audio/opus',
  'audio/wav',
  'audio/x-wav',
  'audio/vnd.wave',
  'audio/webm',
  'audio/amr',
  'audio/flac',
  'audio/x-flac',
]);

export function isContentKind(value: unknown): value is ContentKind {
  return typeof value === 'string' && (CONTENT_KINDS as readonly string[]).includes(value);
}

/** The single kind (image, video, audio) a media type belongs to, if any. */
export function kindOfMime(mime: string | undefined): 'image' | 'video' | 'audio' | undefined {
  if (mime === undefined) return undefined;
  if (IMAGE_TYPES.has(mime)) return 'image';
  if (VIDEO_TYPES.has(mime)) return 'video';
  if (AUDIO_TYPES.has(mime)) return 'audio';
  return undefined;
}

/** Whether a detected media type (undefined: not recognised) is acceptable for a declared kind. */
export function mimeFitsKind(mime: string | undefined, kind: ContentKind): boolean {
  if (kind === 'any') return true;
  const actual = kindOfMime(mime);
  if (kind === 'image_or_video') return actual === 'image' || actual === 'video';
  return actual === kind;
}

/** Words for a 422: what the field should have held. */
export function describeKind(kind: ContentKind): string {
  switch (kind) {
    case 'image':
      return 'an image (JPEG, PNG, WebP, HEIC...)';
    case 'video':
      return 'a video (MP4, MOV, WebM...)';
    case 'image_or_video':
      return 'an image or a video';
    case 'audio':
      return 'an audio file (M4A, MP3, AAC, OGG, WAV...)';
    case 'any':
      return 'a file';
  }
}
