// Logins that stopped at a challenge or a two-factor prompt keep their upstream client for a few
// minutes, so that resolving the challenge and retrying the login happen on the same client (the
// same device, cookies and challenge context the platform saw) instead of a fresh one the platform
// may challenge again. An entry is taken out while in use, so two requests never share a client;
// it is put back while its flow is unfinished and closed when it is forgotten. Memory only: one per
// app, made by the auth module's start and handed to its login and challenge routes.
import { LRUCache } from 'lru-cache';
import type { JsonValue, UpstreamClient } from '../../engine/types.js';
import { closeQuietly } from './options.js';

export interface PendingLogin {
  readonly client: UpstreamClient;
  readonly username: string;
  readonly options: { readonly proxy?: string; readonly locale?: string; readonly timezone?: number };
  challengePath?: string;
}

const TTL_MS = 10 * 60_000;

export class PendingLogins {
  private taking = false;
  private readonly entries = new LRUCache<string, PendingLogin>({
    max: 1000,
    ttl: TTL_MS,
    dispose: (entry) => {
      if (!this.taking) void closeQuietly(entry.client); // evicted, expired or replaced: nobody will resume it
    },
  });

  /** Takes the pending login of this username, when it was started with the same proxy, locale and timezone. */
  takeByUsername(username: string, options: PendingLogin['options']): PendingLogin | undefined {
    const entry = this.entries.get(userKey(username));
    return entry && sameOptions(entry.options, options) ? this.take(entry) : undefined;
  }

  /** Takes the pending login whose challenge this payload names. */
  takeByChallenge(lastJson: JsonValue | undefined): PendingLogin | undefined {
    const path = challengePath(lastJson);
    if (!path) return undefined;
    for (const entry of this.entries.values()) if (entry.challengePath === path) return this.take(entry);
    return undefined;
  }

  /** Keeps an unfinished login for the next step of its flow. */
  put(entry: PendingLogin, lastJson?: JsonValue): void {
    entry.challengePath = challengePath(lastJson) ?? entry.challengePath;
    this.entries.set(userKey(entry.username), entry);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Closes every kept client (the app is closing). */
  clear(): void {
    this.entries.clear();
  }

  private take(entry: PendingLogin): PendingLogin {
    this.taking = true;
    try {
      this.entries.delete(userKey(entry.username));
    } finally {
      this.taking = false;
    }
    return entry;
  }
}

/** The challenge's API path in a ChallengeRequired payload (`challenge.api_path`). */
export function challengePath(lastJson: JsonValue | undefined): string | undefined {
  const challenge = field(lastJson, 'challenge');
  const path = field(challenge, 'api_path');
  return typeof path === 'string' && path ? path : undefined;
}

function field(value: JsonValue | undefined, name: string): JsonValue | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? value[name] : undefined;
}

const userKey = (username: string) => username.trim().toLowerCase();
const sameOptions = (a: PendingLogin['options'], b: PendingLogin['options']) => a.proxy === b.proxy && a.locale === b.locale && a.timezone === b.timezone;
