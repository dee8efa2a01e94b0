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
import { legacyGrant } from '../../engine/owner.js';
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
 * still opens this service's API until then: treat it like a session). A named key's token is
 * made under the key's stored hash (which never leaves the service) and carries the key's name
 * after a `~`, so revoking the key ends its cookies too.
 */
export function consoleToken(secret: string, expiresAt: number, name?: string): string {
  const mac = createHmac('sha256', secret)
    .update(`socialgate console v1 ${expiresAt}${name === undefined ? '' : ` ${name}`}`)
    .digest('base64url');
  return `${expiresAt}.${mac}${name === undefined ? '' : `~${name}`}`;
}

/** The named key a console token is of, or undefined for the legacy key's. */
export function tokenKeyName(cookie: string): string | undefined {
  const at = cookie.indexOf('~');
  return at < 0 ? undefined : cookie.slice(at + 1);
}

/** Whether a cookie is a token of this key (the legacy key, or a named key's hash and name) that has not ended yet. */
export function validToken(secret: string, cookie: string, now = Date.now(), name?: string): boolean {
  const expiresAt = Number(cookie.slice(0, cookie.indexOf('.')));
  return Number.isSafeInteger(expiresAt) && expiresAt * 1000 > now && sameSecret(cookie, consoleToken(secret, expiresAt, name));
}

/**
 * The console page's own requests carry the key's cookie (set by POST /console/key): of the legacy
 * key, or of a named key with the operator scope (still held, still an operator's). A request that
 * changes something must also carry the console's header, which another site's form or link
 * cannot add: the cookie alone authorises reads only (the page's event stream cannot send headers).
 */
export const consoleCookie: KeyProof = {
  name: 'console.cookie',
  async grant(request, { legacyKey, ring }) {
    const cookie = request.cookie(CONSOLE_COOKIE);
    if (!cookie || !(request.method === 'GET' || request.method === 'HEAD' || request.header(CONSOLE_HEADER) === '1')) return undefined;
    const name = tokenKeyName(cookie);
    if (name === undefined) return legacyKey && validToken(legacyKey, cookie) ? legacyGrant() : undefined;
    const named = await ring.named(name);
    return named?.grant.scopes.includes('operator') && validToken(named.hash, cookie, Date.now(), name) ? named.grant : undefined;
  },
};
