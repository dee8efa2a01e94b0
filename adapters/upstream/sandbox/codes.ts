// Shortcodes and share URLs as the platform makes them: a media pk is a big integer written in a
// base-64 alphabet (A-Z a-z 0-9 - _), so a share URL decodes back to its pk without a lookup.
import { fail } from './errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const INDEX = new Map([...ALPHABET].map((ch, i) => [ch, BigInt(i)]));
export const WEB = 'https://www.instagram.com';

export function codeFromPk(pk: string): string {
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

/** Share links (`/s/<code>`) carry base64 of "<type>:<pk>". */
export function shareCode(type: string, pk: string): string {
  return Buffer.from(`${type}:${pk}`).toString('base64url');
}

export function shareCodeFromUrl(url: string): string {
  const match = /\/s\/([A-Za-z0-9_=-]+)/.exec(pathOf(url));
  if (!match) fail('ShareDecodeError', `Unable to extract share code from URL: ${url}`);
  return (match as RegExpExecArray)[1];
}

export function decodeShare(code: string): { pk: string; type: string } {
  const text = Buffer.from(code, 'base64').toString('utf8');
  const match = /^([a-z_]+):(\d+)$/.exec(text);
  if (!match) fail('ShareDecodeError', `Unable to decode share code: ${code}`);
  const [, type, pk] = match as RegExpExecArray;
  return { pk, type };
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
  share: (type: string, pk: string) => `${WEB}/s/${shareCode(type, pk)}`,
  profile: (username: string) => `${WEB}/${username}/`,
};
