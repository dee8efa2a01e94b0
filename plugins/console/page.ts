// GET /console and its key: the page (built into dist/console by `npm run build`), and the cookie
// that proves the API key for the page's own requests, so the key is typed once and never sits in
// a URL or in script.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sameSecret } from '../../engine/keys.js';
import { CONSOLE_COOKIE, consoleDir, consoleToken } from './assets.js';
import { serviceError } from './errors.js';
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

/**
 * Guessing the key through the form counts against the client address as a wrong X-API-Key does
 * (engine/keys.ts WrongKeys): past the limit every try waits for the minute's end, unchecked.
 */
export function openConsole({ input, services, address }: PluginInput): ReplyResult | { required: false } {
  const key = services.config.apiKey;
  if (!key) return { required: false };
  services.keys.wrong.check(address ?? '');
  if (!sameSecret(String(input.key), key)) {
    services.keys.wrong.wrong(address ?? '');
    throw serviceError('ApiKeyWrong', 'Wrong API key');
  }
  const expiresAt = Math.floor(Date.now() / 1000) + COOKIE_SECONDS;
  return { kind: 'reply', body: { required: true }, cookies: [{ name: CONSOLE_COOKIE, value: consoleToken(key, expiresAt), maxAgeSeconds: COOKIE_SECONDS }] };
}

export function closeConsole({ services }: PluginInput): ReplyResult {
  return { kind: 'reply', body: { required: !!services.config.apiKey }, cookies: [{ name: CONSOLE_COOKIE, value: '', maxAgeSeconds: 0 }] };
}
