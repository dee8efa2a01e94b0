// GET /console and its key: the page (built into dist/console by `npm run build`), and the cookie
// that proves the API key for the page's own requests, so the key is typed once and never sits in
// a URL or in script.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashKey, sameSecret } from '../../engine/keys.js';
import { LEGACY_KEY_NAME } from '../../engine/owner.js';
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
 * The legacy key (SOCIALGATE_API_KEY), or a named key with the operator scope: the console is the
 * operators'. Guessing the key through the form counts against the client address as a wrong
 * X-API-Key does (engine/keys.ts WrongKeys): past the limit every try waits for the minute's end, unchecked.
 */
export async function openConsole({ input, services, address }: PluginInput): Promise<ReplyResult | { required: false }> {
  const { ring, wrong } = services.keys;
  if (!(await ring.required())) return { required: false };
  wrong.check(address ?? '');
  const given = String(input.key);
  const legacy = services.config.apiKey;
  const expiresAt = Math.floor(Date.now() / 1000) + COOKIE_SECONDS;
  if (legacy && sameSecret(given, legacy)) return opened(consoleToken(legacy, expiresAt), LEGACY_KEY_NAME);
  const grant = await ring.verify(given);
  if (!grant) {
    wrong.wrong(address ?? '');
    throw serviceError('ApiKeyWrong', 'Wrong API key');
  }
  if (!grant.scopes.includes('operator')) {
    throw serviceError('ApiKeyScopeMissing', `The console needs the "operator" scope; key "${grant.name}" has ${grant.scopes.map((s) => `"${s}"`).join(', ')}`);
  }
  return opened(consoleToken(hashKey(given), expiresAt, grant.name), grant.name);
}

function opened(token: string, name: string): ReplyResult {
  return { kind: 'reply', body: { required: true, key: name }, cookies: [{ name: CONSOLE_COOKIE, value: token, maxAgeSeconds: COOKIE_SECONDS }] };
}

export async function closeConsole({ services }: PluginInput): Promise<ReplyResult> {
  return { kind: 'reply', body: { required: await services.keys.ring.required() }, cookies: [{ name: CONSOLE_COOKIE, value: '', maxAgeSeconds: 0 }] };
}
