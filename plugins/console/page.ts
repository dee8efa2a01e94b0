// GET /console and its key: the page (built into dist/console by `npm run build`), and the cookie
// that proves the API key for the page's own requests, so the key is typed once and never sits in
// a URL or in script.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONSOLE_COOKIE, consoleDir, consoleToken, sameSecret } from '../../engine/console.js';
import { HttpError } from '../../engine/http-error.js';
import type { PluginInput, ReplyResult } from '../../engine/types.js';

/** The cookie outlives a working day, not a week. */
const COOKIE_SECONDS = 12 * 3600;

let page: Promise<string> | undefined;

export async function consolePage(): Promise<string> {
  page ??= readFile(join(consoleDir(), 'index.html'), 'utf8');
  try {
    return await page;
  } catch {
    page = undefined;
    throw new HttpError(503, 'The console is not built', { excType: 'ConsoleNotBuilt', hint: 'Run `npm run build` (npm ci runs it).' });
  }
}

export function openConsole({ input, services }: PluginInput): ReplyResult | { required: false } {
  const key = services.config.apiKey;
  if (!key) return { required: false };
  if (!sameSecret(String(input.key), key)) throw new HttpError(401, 'Wrong API key', { excType: 'ApiKeyRequired', hint: 'The key is SOCIALGATE_API_KEY of this service.' });
  return { kind: 'reply', body: { required: true }, cookies: [{ name: CONSOLE_COOKIE, value: consoleToken(key), maxAgeSeconds: COOKIE_SECONDS }] };
}

export function closeConsole({ services }: PluginInput): ReplyResult {
  return { kind: 'reply', body: { required: !!services.config.apiKey }, cookies: [{ name: CONSOLE_COOKIE, value: '', maxAgeSeconds: 0 }] };
}
