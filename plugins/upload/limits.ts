// Per-kind size limits and content checks for one file, answered as HTTP outcomes that name the
// field: 413 for a file over its kind's limit, 422 for content that is not the declared kind.
import { invalidParams, serviceError } from '../../engine/service-errors.js';
import type { ParamSpec } from '../../engine/types.js';
import { checkKind, formatBytes, isContentKind, withExtension, type ContentKind, type Sniffed, type TransferSettings } from '../../adapters/transfer/index.js';

const LIMIT_SETTING: Readonly<Record<'image' | 'video' | 'audio' | 'any', string>> = {
  image: 'UPLOAD_MAX_IMAGE_MB',
  video: 'UPLOAD_MAX_VIDEO_MB',
  audio: 'UPLOAD_MAX_AUDIO_MB',
  any: 'UPLOAD_MAX_ANY_MB',
};

/** The declared content kind of a file or url parameter; `any` when the manifest names none. */
export function kindOf(param: ParamSpec): ContentKind {
  return isContentKind(param.format) ? param.format : 'any';
}

/** The largest file a kind may be before its bytes are even looked at. */
export function maxBytesFor(kind: ContentKind, settings: TransferSettings): number {
  const limits = settings.uploadMaxBytes;
  return kind === 'image_or_video' ? Math.max(limits.image, limits.video) : limits[kind];
}

/**
 * The cap the engine applies while a file field streams in (injected as BodyLimits.fileCap): the
 * largest file its kind may be, so an oversize file is cut off there, not written in full first.
 */
export function streamCapFor(settings: TransferSettings): (param: ParamSpec) => { readonly bytes: number; readonly problem: string } {
  return (param) => {
    const kind = kindOf(param);
    const actual = kind === 'image_or_video' ? undefined : kind;
    return { bytes: maxBytesFor(kind, settings), problem: overLimit(actual, kind, settings) };
  };
}

export interface CheckedFile {
  /** The file's path, renamed to carry the extension of its content. */
  readonly path: string;
  readonly sniffed: Sniffed;
}

/**
 * Check one file of `field` against its declared kind and the size limits, then give it the
 * extension of its content. `cleanup` receives the path when it changed, so the caller can
 * remove the renamed file (the engine only knows the original name).
 */
export async function checkFile(
  field: string,
  file: { path: string; size: number },
  kind: ContentKind,
  settings: TransferSettings,
  cleanup: (path: string) => void,
): Promise<CheckedFile> {
  checkSize(field, file.size, kind === 'image_or_video' ? undefined : kind, kind, settings);
  const verdict = await checkKind(file.path, kind);
  if (!verdict.ok) throw invalidParams([{ param: field, problem: verdict.problem }]);
  if (kind === 'image_or_video' && verdict.sniffed.kind !== undefined) checkSize(field, file.size, verdict.sniffed.kind, kind, settings);
  const path = await withExtension(file.path, verdict.sniffed.ext);
  if (path !== file.path) cleanup(path);
  return { path, sniffed: verdict.sniffed };
}

type SizedKind = 'image' | 'video' | 'audio' | 'any' | undefined;

function checkSize(field: string, size: number, actual: SizedKind, kind: ContentKind, settings: TransferSettings): void {
  if (size <= limitOf(actual, kind, settings)) return;
  const problem = `${formatBytes(size)} is ${overLimit(actual, kind, settings)}`;
  throw serviceError('PayloadTooLarge', `File ${field} is too large: ${problem}`, { errors: [{ param: field, problem }] });
}

/** `actual` is the kind the content turned out to be; undefined before it is known. */
function limitOf(actual: SizedKind, kind: ContentKind, settings: TransferSettings): number {
  return actual === undefined ? maxBytesFor(kind, settings) : settings.uploadMaxBytes[actual];
}

function overLimit(actual: SizedKind, kind: ContentKind, settings: TransferSettings): string {
  const setting = actual === undefined ? `${LIMIT_SETTING.image} / ${LIMIT_SETTING.video}` : LIMIT_SETTING[actual];
  const what = actual === undefined || actual === 'any' ? 'this field' : `${actual} files`;
  return `over the ${formatBytes(limitOf(actual, kind, settings))} limit for ${what} (${setting})`;
}
