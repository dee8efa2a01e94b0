// A session record's pure helpers: how it is named outside (its ref), how a new one is named, the
// client options it opens with and what a live client was built from (the state change between two
// of its versions is ./record-fields.ts, which knows the modules' fields).
import { createHash, randomBytes } from 'node:crypto';
import type { ClientOptions, SessionRecord, SessionState } from './types.js';

/**
 * How the console, events and webhooks name a session: 132 bits of SHA-256 of its id, stable across
 * instances and restarts, unguessable, and no way back to the id (a session id is a credential).
 */
export function sessionRef(id: string): string {
  return createHash('sha256').update('socialgate session ref\0').update(id).digest('base64url').slice(0, 22);
}

/** Issued by the service: 192 random bits, opaque, never the platform's cookie. */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

export function clientOptions(record: SessionRecord): ClientOptions {
  // The account pk names the session to the upstream: stable across reopenings and restarts, and no secret.
  const sessionKey = record.account.pk || undefined;
  return { settings: record.settings, proxy: record.proxy, locale: record.locale, timezone: record.timezone, sessionKey };
}

/** What a live client is opened from: a re-read record that differs in any of it needs a new client. */
export function builtFrom(record: SessionRecord): string {
  return JSON.stringify([record.settings, record.proxy ?? null, record.locale ?? null, record.timezone ?? null]);
}

/**
 * The state as it is now, for lists (console, CLI): a throttle whose pause has ended reads active, since the
 * governor lets the next call through (the record itself changes only when a call succeeds).
 */
export function effectiveState(record: SessionRecord, now = Date.now()): SessionState {
  return record.state === 'throttled' && !((record.throttledUntil ?? 0) > now) ? 'active' : record.state;
}

/** Longest label an operator may give a session. */
export const LABEL_MAX = 64;

/** Each id's shortest prefix of at least `min` characters that no other id shares: what a list prints and a command takes back. */
export function uniquePrefixes(ids: readonly string[], min: number): Map<string, string> {
  const sorted = [...ids].sort();
  const common = (a = '', b = '') => {
    let n = 0;
    while (n < a.length && a[n] === b[n]) n++;
    return n;
  };
  return new Map(sorted.map((id, i) => [id, id.slice(0, Math.max(min, 1 + Math.max(common(id, sorted[i - 1]), common(id, sorted[i + 1]))))]));
}

/** host:port of a proxy URL; its user and password never leave the store. */
export function proxyHost(proxy: string | undefined): string | null {
  if (!proxy) return null;
  try {
    return new URL(proxy).host || '(unreadable proxy URL)';
  } catch {
    return '(unreadable proxy URL)';
  }
}
