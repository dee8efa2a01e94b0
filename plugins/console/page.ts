// GET /console and its key: the page (built into dist/console by `npm run build`), and the cookie
// that proves the API key for the page's own requests, so the key is typed once and never sits in
// a URL or in script.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONSOLE_COOKIE, consoleDir, consoleToken, sameSecret } from '../../engine/console.js';
import { serviceError } from '../../engine/service-errors.js';
import type { PluginInput, ReplyResult } from '../../engine/types.js';

/** The cookie (and the token in it, checked by the service) lasts a working day. */
const COOKIE_SECONDS = 12 * 3600;

let page: Promise<string> | undefined;

export async function consolePage(): Promise<string> {
  page ??= readFile(join(consoleDir(), 'index.html'), 'utf8');
  try {
    return await page;
  } catch {
    page = undefined;
    throw serviceError('ConsoleNotBuilt', 'The console is not built');
  }
}

/** Wrong keys typed into the console, per app, in the current minute: past the limit every try waits. */
const ATTEMPTS_PER_MINUTE = 10;
const wrongKeys = new WeakMap<object, { windowStart: number; count: number }>();

/**
 * Guessing the key through the form is slowed to a few tries a minute for everyone (the page has
 * no per-client identity to go by behind a proxy); requests that carry the key are not affected.
 */
function checkAttempts(services: PluginInput['services']): { count: number } {
  const now = Date.now();
  let window = wrongKeys.get(services);
  if (!window || now - window.windowStart >= 60_000) wrongKeys.set(services, (window = { windowStart: now, count: 0 }));
  if (window.count >= ATTEMPTS_PER_MINUTE) {
    throw serviceError('ApiKeyAttemptsExceeded', `More than ${ATTEMPTS_PER_MINUTE} wrong keys this minute; try again later`, { retryAfter: Math.ceil((window.windowStart + 60_000 - now) / 1000) });
  }
  return window;
}

export function openConsole({ input, services }: PluginInput): ReplyResult | { required: false } {
  const key = services.config.apiKey;
  if (!key) return { required: false };
  const window = checkAttempts(services);
  if (!sameSecret(String(input.key), key)) {
    window.count++;
    throw serviceError('ApiKeyWrong', 'Wrong API key');
  }
  const expiresAt = Math.floor(Date.now() / 1000) + COOKIE_SECONDS;
  return { kind: 'reply', body: { required: true }, cookies: [{ name: CONSOLE_COOKIE, value: consoleToken(key, expiresAt), maxAgeSeconds: COOKIE_SECONDS }] };
}

export function closeConsole({ services }: PluginInput): ReplyResult {
  return { kind: 'reply', body: { required: !!services.config.apiKey }, cookies: [{ name: CONSOLE_COOKIE, value: '', maxAgeSeconds: 0 }] };
}
