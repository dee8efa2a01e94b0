// The operator console's static side: its built assets (dist/console, written by `npm run build`
// from console/ and the preact and htm packages; no CDN, works offline), served by exact path like
// the /docs assets, and the cookie that carries the API key's proof for the page's own requests.
import { createHmac } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import type Koa from 'koa';
import { projectRoot } from '../../engine/root.js';
import { sameSecret } from '../../engine/keys.js';
import type { KeyProof } from '../../engine/types.js';

export const CONSOLE_ASSET_PREFIX = '/console/assets/';
export const CONSOLE_COOKIE = 'socialgate_console';
/** Sent by the page with every request that changes something: a cookie alone never authorises one. */
export const CONSOLE_HEADER = 'x-socialgate-console';

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export function consoleDir(): string {
  return join(projectRoot(), 'dist', 'console');
}

/** One handler per built asset, by exact path; none when the console is not built. */
export function consoleAssets(dir = consoleDir()): Map<string, Koa.Middleware> {
  const handlers = new Map<string, Koa.Middleware>();
  if (!existsSync(dir)) return handlers;
  for (const file of filesUnder(dir)) {
    const type = TYPES[extname(file)];
    if (!type) continue;
    let bytes: Promise<Buffer> | undefined;
    handlers.set(CONSOLE_ASSET_PREFIX + relative(dir, file).split(sep).join('/'), async (ctx, next) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      bytes ??= readFile(file);
      ctx.state.route = 'GET /console/assets';
      ctx.type = type;
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = await bytes;
    });
  }
  return handlers;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/**
 * What the cookie holds: its end (epoch seconds) and an HMAC of it under the key, never the key,
 * so a leaked cookie jar does not hand over the key itself and stops working at its end (it
 * still opens this service's API until then: treat it like a session).
 */
export function consoleToken(apiKey: string, expiresAt: number): string {
  return `${expiresAt}.${createHmac('sha256', apiKey).update(`socialgate console v1 ${expiresAt}`).digest('base64url')}`;
}

/** Whether a cookie is a token of this key that has not ended yet. */
export function validToken(apiKey: string, cookie: string, now = Date.now()): boolean {
  const expiresAt = Number(cookie.slice(0, cookie.indexOf('.')));
  return Number.isSafeInteger(expiresAt) && expiresAt * 1000 > now && sameSecret(cookie, consoleToken(apiKey, expiresAt));
}

/**
 * The console page's own requests carry the key's cookie (set by POST /console/key). A request that
 * changes something must also carry the console's header, which another site's form or link
 * cannot add: the cookie alone authorises reads only (the page's event stream cannot send headers).
 */
export const consoleCookie: KeyProof = {
  name: 'console.cookie',
  proves(request, key) {
    const cookie = request.cookie(CONSOLE_COOKIE);
    if (!cookie || !validToken(key, cookie)) return false;
    return request.method === 'GET' || request.method === 'HEAD' || request.header(CONSOLE_HEADER) === '1';
  },
};
