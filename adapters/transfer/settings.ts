// Transfer settings, read from the engine's config.extra (SOCIALGATE_* variables, prefix removed).
// Unknown keys belong to other components; a bad value for one of ours stops the boot by name.
import { parseAllowList, type AllowList } from './address-guard.js';
import type { ContentKind } from './kinds.js';

export interface FetchSettings {
  /** Time allowed to connect and receive the response headers. */
  readonly connectTimeoutMs: number;
  /** Longest silence allowed while reading the body. */
  readonly readTimeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly allow: AllowList;
}

export interface TransferSettings {
  /** Per-kind upload limits in bytes; image_or_video uses the limit of what the file turns out to be. */
  readonly uploadMaxBytes: Readonly<Record<Exclude<ContentKind, 'image_or_video'>, number>>;
  readonly fetch: FetchSettings;
}

const MB = 1024 * 1024;

export const TRANSFER_DEFAULTS = {
  UPLOAD_MAX_IMAGE_MB: 32,
  UPLOAD_MAX_VIDEO_MB: 1024,
  UPLOAD_MAX_AUDIO_MB: 64,
  UPLOAD_MAX_ANY_MB: 256,
  FETCH_CONNECT_TIMEOUT_MS: 10_000,
  FETCH_TIMEOUT_MS: 30_000,
  FETCH_MAX_MB: 1024,
  FETCH_MAX_REDIRECTS: 3,
} as const;

/** Build the transfer settings; throws an Error naming the setting on an invalid value. */
export function transferSettingsFromEnv(extra: Readonly<Record<string, string | undefined>>): TransferSettings {
  const mb = (key: keyof typeof TRANSFER_DEFAULTS): number => Math.floor(readNumber(extra, key, { min: Number.MIN_VALUE }) * MB);
  return {
    uploadMaxBytes: {
      image: mb('UPLOAD_MAX_IMAGE_MB'),
      video: mb('UPLOAD_MAX_VIDEO_MB'),
      audio: mb('UPLOAD_MAX_AUDIO_MB'),
      any: mb('UPLOAD_MAX_ANY_MB'),
    },
    fetch: {
      connectTimeoutMs: readNumber(extra, 'FETCH_CONNECT_TIMEOUT_MS', { min: 1, integer: true }),
      readTimeoutMs: readNumber(extra, 'FETCH_TIMEOUT_MS', { min: 1, integer: true }),
      maxBytes: mb('FETCH_MAX_MB'),
      maxRedirects: readNumber(extra, 'FETCH_MAX_REDIRECTS', { min: 0, max: 20, integer: true }),
      allow: readAllowList(extra),
    },
  };
}

// Settings are parsed once per config object: plugins ask on every request.
const cache = new WeakMap<object, TransferSettings>();
export function transferSettingsFor(extra: Readonly<Record<string, string | undefined>>): TransferSettings {
  let settings = cache.get(extra);
  if (settings === undefined) {
    settings = transferSettingsFromEnv(extra);
    cache.set(extra, settings);
  }
  return settings;
}

function readNumber(
  extra: Readonly<Record<string, string | undefined>>,
  key: keyof typeof TRANSFER_DEFAULTS,
  rule: { min: number; max?: number; integer?: boolean },
): number {
  const raw = extra[key];
  if (raw === undefined || raw.trim() === '') return TRANSFER_DEFAULTS[key];
  const value = Number(raw.trim());
  const fits = Number.isFinite(value) && value >= rule.min && (rule.max === undefined || value <= rule.max) && (!rule.integer || Number.isInteger(value));
  if (!fits) {
    const want =
      `${rule.integer ? 'an integer' : 'a number'} ` +
      `${rule.min === Number.MIN_VALUE ? 'above 0' : `of at least ${rule.min}`}${rule.max === undefined ? '' : ` and at most ${rule.max}`}`;
    throw new Error(`Setting ${key} (SOCIALGATE_${key}) must be ${want}; got "${raw}"`);
  }
  return value;
}

function readAllowList(extra: Readonly<Record<string, string | undefined>>): AllowList {
  const raw = extra.FETCH_ALLOW ?? '';
  try {
    return parseAllowList(raw.split(','));
  } catch (err) {
    throw new Error(`Setting FETCH_ALLOW (SOCIALGATE_FETCH_ALLOW): ${(err as Error).message}`);
  }
}
