// Shortcodes and share URLs as the platform makes them: a media pk is a big integer written in a
// base-64 alphabet (A-Z a-z 0-9 - _), so a post URL decodes back to its pk without a lookup; share
// links carry their type and pk in base64.
import { fail } from './errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const INDEX = new Map([...ALPHABET].map((ch, i) => [ch, BigInt(i)]));
export const WEB = 'https://www.instagram.com';

/** Codes already made (a pure function of the pk, in BigInt arithmetic: every media record and channel asks). */
const made = new Map<string, string>();
const MADE_MAX = 50_000;

export function codeFromPk(pk: string): string {
  let code = made.get(pk);
  if (code === undefined) {
    if (made.size >= MADE_MAX) made.clear();
    made.set(pk, (code = encode(pk)));
  }
  return code;
}

function encode(pk: string): string {
  let n = BigInt(pk);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 64n)] + out;
    n /= 64n;
  }
  return out || 'A';
}

export function pkFromCode(code: string): string {
  let n = 0n;
  for (const ch of code) {
    const digit = INDEX.get(ch);
    if (digit === undefined) fail('ValueError', `invalid literal for shortcode: '${code}'`);
    n = n * 64n + (digit as bigint);
  }
  return n.toString();
}

const MEDIA_PATH = /\/(?:p|reel|reels|tv)\/([A-Za-z0-9_-]+)/;

/** The code in a post, reel or IGTV URL. */
export function codeFromUrl(url: string): string {
  const match = MEDIA_PATH.exec(pathOf(url));
  if (!match) fail('ValueError', `Unable to extract media code from URL: ${url}`);
  return (match as RegExpExecArray)[1];
}

export function storyPkFromUrl(url: string): string {
  const match = /\/stories\/[^/]+\/(\d+)/.exec(pathOf(url));
  if (!match || match[0].startsWith('/stories/highlights/')) fail('ValueError', `Unable to extract story pk from URL: ${url}`);
  return (match as RegExpExecArray)[1];
}

export function highlightPkFromUrl(url: string): string {
  const match = /\/stories\/highlights\/(\d+)/.exec(pathOf(url));
  if (!match) fail('ValueError', `Unable to extract highlight pk from URL: ${url}`);
  return (match as RegExpExecArray)[1];
}

/**
 * Share links (`/s/<code>`, `/share/<code>`) carry base64 of "<type>:<pk>". The platform pads
 * some with U+001D control characters that the decoder drops; the sandbox uses the same trick to
 * pick an encoding without "/" or "=", so its codes survive as one URL path segment.
 */
export function shareCode(type: string, pk: string): string {
  let fallback = '';
  for (let pad = 0; pad < 12; pad++) {
    const code = Buffer.from(`${type}${'\x1d'.repeat(pad)}:${pk}`).toString('base64');
    if (/^[A-Za-z0-9]+$/.test(code)) return code;
    if (!fallback && !code.includes('/')) fallback = code;
  }
  return fallback;
}

/** The last segment of the URL's path, as aiograpi's share_code_from_url takes it. */
export function shareCodeFromUrl(url: string): string {
  const parts = pathOf(url).split('/').filter(Boolean);
  if (!parts.length) fail('IndexError', 'pop from empty list');
  return parts[parts.length - 1];
}

/**
 * aiograpi's share_info: Python's lenient base64 (characters outside the alphabet are skipped,
 * padding must complete the last group), bytes that are not UTF-8 and U+001D dropped, then split
 * on ':' into type and pk. A decode failure is ShareDecodeError; text without ':' fails on the
 * missing pk with IndexError, as the library does.
 */
export function decodeShare(code: string): { pk: string; type: string } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, as Python's b64decode checks it
  if (/[^\x00-\x7f]/.test(code)) fail('ShareDecodeError', 'string argument should contain only ASCII characters');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: U+001D is the separator the platform puts in share codes
  const parts = utf8Lenient(pyB64Decode(code)).replace(/\x1d/g, '').split(':');
  if (parts.length < 2) fail('IndexError', 'list index out of range');
  return { pk: parts[1], type: parts[0] };
}

const B64 = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((ch, i) => [ch, i]));

/** binascii.a2b_base64 in its default (non-strict) mode. */
function pyB64Decode(text: string): Buffer {
  const out: number[] = [];
  let quad = 0;
  let left = 0;
  let pads = 0;
  for (const ch of text) {
    if (ch === '=') {
      if (quad >= 2 && quad + ++pads >= 4) return Buffer.from(out);
      continue;
    }
    const v = B64.get(ch);
    if (v === undefined) continue;
    pads = 0;
    if (quad === 1) out.push(((left << 2) | (v >> 4)) & 0xff);
    else if (quad === 2) out.push(((left << 4) | (v >> 2)) & 0xff);
    else if (quad === 3) out.push(((left << 6) | v) & 0xff);
    left = quad === 0 ? v : quad === 1 ? v & 0x0f : quad === 2 ? v & 0x03 : 0;
    quad = (quad + 1) % 4;
  }
  const chars = [...text].filter((ch) => B64.has(ch)).length;
  if (quad === 1) fail('ShareDecodeError', `Invalid base64-encoded string: number of data characters (${chars}) cannot be 1 more than a multiple of 4`);
  if (quad !== 0) fail('ShareDecodeError', 'Incorrect padding');
  return Buffer.from(out);
}

/** bytes.decode(errors="ignore"): invalid UTF-8 sequences vanish. */
function utf8Lenient(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\uFFFD/g, '');
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

export const urls = {
  post: (code: string) => `${WEB}/p/${code}/`,
  reel: (code: string) => `${WEB}/reel/${code}/`,
  story: (username: string, pk: string) => `${WEB}/stories/${username}/${pk}/`,
  highlight: (pk: string) => `${WEB}/stories/highlights/${pk}/`,
  share: (type: string, pk: string) => `${WEB}/share/${shareCode(type, pk)}`,
  shareLegacy: (type: string, pk: string, igsh: string) => `${WEB}/s/${shareCode(type, pk)}?igsh=${igsh}`,
  profile: (username: string) => `${WEB}/${username}/`,
};
