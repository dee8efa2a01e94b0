// Who is asking, and whose a resource is. Every owned resource (a job, a webhook endpoint, a pool,
// and what comes: scheduled writes, audit entries) keeps an Owner; every request carries a Caller;
// engine/owner.ts decides between them, in one place.

export type KeyScope = 'read' | 'write' | 'operator';
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'write', 'operator'];

/** What a verified API key allows: its name (logged), its scopes and, optionally, the accounts and pools it is limited to. */
export interface KeyGrant {
  readonly name: string;
  readonly scopes: readonly KeyScope[];
  /** Account pks or usernames whose sessions the key may use; absent: any. */
  readonly accounts?: readonly string[];
  /** Pools the key may read through (X-Pool, a job's `pool`), whoever made them; absent: the pools it owns. */
  readonly pools?: readonly string[];
}

/** The identity of one request: its key (absent when the service has no keys at all) and its session's account. */
export interface Caller {
  readonly key?: KeyGrant;
  /** The pk of the account of the request's session, when it has one. */
  readonly account?: string;
}

/** Whose a resource is: the account it acts for and the key that made it (either may be absent). */
export interface Owner {
  readonly account?: string;
  readonly key?: string;
}
