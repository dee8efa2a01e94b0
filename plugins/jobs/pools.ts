// Pools: named groups of sessions that read work (jobs, GET routes naming X-Pool) is spread over.
// A member's health is its session record's: active (and not inside a governor back-off) is
// healthy; throttled cools down until the governor's time; a challenge, a logged-out or a revoked
// session is quarantined until it is resolved. Members keep their own proxies (their sessions').
// Session ids are secrets: the work store keeps them sealed, answers name members by account.
import type { HttpError } from '../../engine/http-error.js';
import { invalidParams, serviceError } from '../../engine/service-errors.js';
import type { PoolChooser, SessionRecord, SessionService, WorkStore } from '../../engine/types.js';

const BUCKET = 'pools';
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export type MemberState = 'healthy' | 'cooling' | 'quarantined';

interface StoredMember {
  readonly sealed: string;
  readonly pk: string;
  readonly username: string;
  readonly added_at: number;
}
interface StoredPool {
  readonly name: string;
  readonly created_at: number;
  readonly members: readonly StoredMember[];
}

export interface MemberView {
  readonly pk: string;
  readonly username: string;
  readonly state: MemberState;
  /** Why a member is not healthy: throttled, challenge, logged_out, revoked. */
  readonly reason?: string;
  /** Epoch ms a cooling member is healthy again. */
  readonly until?: number;
}

interface Cached {
  readonly pool: StoredPool;
  readonly at: number;
}

export class Pools implements PoolChooser {
  private readonly cache = new Map<string, Cached>();
  private readonly turn = new Map<string, number>();

  constructor(private readonly store: WorkStore, private readonly sessions: SessionService, private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  async create(name: string, sessionIds: readonly string[]): Promise<{ name: string; members: MemberView[] }> {
    checkName(name);
    const members = await Promise.all(sessionIds.map((id) => this.memberFor(name, id)));
    const unique = [...new Map(members.map((m) => [m.pk, m])).values()];
    await this.store.update<StoredPool>(BUCKET, name, (current) => ({ name, created_at: current?.created_at ?? this.now(), members: mergeMembers(current?.members ?? [], unique) }));
    this.cache.delete(name);
    return this.view(name);
  }

  async addMember(name: string, sessionId: string): Promise<{ name: string; members: MemberView[] }> {
    await this.load(name);
    return this.create(name, [sessionId]);
  }

  async removeMember(name: string, member: string): Promise<{ name: string; members: MemberView[] }> {
    const pool = await this.load(name);
    const pk = await this.pkOf(pool, member);
    if (!pk) throw serviceError('PoolMemberNotFound', `Pool "${name}" has no member ${member.length > 24 ? 'with that session' : `"${member}"`}`);
    await this.store.update<StoredPool>(BUCKET, name, (current) => current && { ...current, members: current.members.filter((m) => m.pk !== pk) });
    this.cache.delete(name);
    return this.view(name);
  }

  async remove(name: string): Promise<boolean> {
    this.cache.delete(name);
    return this.store.delete(BUCKET, name);
  }

  async list(): Promise<{ name: string; members: MemberView[] }[]> {
    const pools = await this.store.list<StoredPool>(BUCKET);
    return Promise.all(pools.map((p) => this.viewOf(p.value)));
  }

  async view(name: string): Promise<{ name: string; members: MemberView[] }> {
    return this.viewOf(await this.load(name, true));
  }

  /** A healthy member, in turn; 429 (some member cools down) or 503 (all quarantined) otherwise. */
  async choose(name: string): Promise<SessionRecord> {
    const pool = await this.load(name);
    const checked = await Promise.all(pool.members.map((m) => this.health(pool.name, m)));
    const healthy = checked.filter((c) => c.view.state === 'healthy');
    if (healthy.length) {
      const next = (this.turn.get(name) ?? 0) % healthy.length;
      this.turn.set(name, next + 1);
      return healthy[next].record!;
    }
    throw this.noneHealthy(name, checked.map((c) => c.view));
  }

  /** Each pool's members by state, for /metrics. */
  async census(): Promise<{ pool: string; state: MemberState; count: number }[]> {
    const rows: { pool: string; state: MemberState; count: number }[] = [];
    for (const pool of await this.list()) {
      for (const state of ['healthy', 'cooling', 'quarantined'] as const) rows.push({ pool: pool.name, state, count: pool.members.filter((m) => m.state === state).length });
    }
    return rows;
  }

  private noneHealthy(name: string, members: readonly MemberView[]): HttpError {
    const cooling = members.filter((m) => m.state === 'cooling').map((m) => m.until ?? 0);
    if (cooling.length) {
      const seconds = Math.max(1, Math.ceil((Math.min(...cooling) - this.now()) / 1000));
      return serviceError('PoolThrottled', `No member of pool "${name}" is healthy: the platform throttled them; the first is back in ${seconds} s`, { retryAfter: seconds });
    }
    const detail = members.length ? `every member of pool "${name}" is quarantined (challenge or logged out)` : `pool "${name}" has no members`;
    return serviceError('PoolUnavailable', `No member of pool "${name}" is healthy: ${detail}`);
  }

  private async health(pool: string, member: StoredMember): Promise<{ view: MemberView; record?: SessionRecord }> {
    const id = this.store.open(member.sealed, pool);
    const record = this.sessions.peek(id) ?? (await this.sessions.find(id));
    return { view: { pk: member.pk, username: member.username, ...stateOf(record, this.now()) }, record };
  }

  private async viewOf(pool: StoredPool): Promise<{ name: string; members: MemberView[] }> {
    const members = await Promise.all(pool.members.map(async (m) => (await this.health(pool.name, m)).view));
    return { name: pool.name, members };
  }

  /** The pool, cached for the session-record TTL (another instance may change it meanwhile). */
  private async load(name: string, fresh = false): Promise<StoredPool> {
    checkName(name);
    const cached = this.cache.get(name);
    if (cached && !fresh && this.now() - cached.at < this.ttlMs) return cached.pool;
    const pool = await this.store.get<StoredPool>(BUCKET, name);
    if (!pool) throw serviceError('PoolNotFound', `No pool named "${name}"`);
    this.cache.set(name, { pool, at: this.now() });
    return pool;
  }

  private async memberFor(pool: string, sessionId: string): Promise<StoredMember> {
    const record = await this.sessions.find(sessionId);
    if (!record) throw invalidParams([{ param: 'sessions', problem: 'unknown or revoked session' }]);
    return { sealed: this.store.seal(sessionId, pool), pk: record.account.pk, username: record.account.username, added_at: this.now() };
  }

  /** A member named by account pk, username or session id. */
  private async pkOf(pool: StoredPool, member: string): Promise<string | undefined> {
    const direct = pool.members.find((m) => m.pk === member || m.username === member);
    if (direct) return direct.pk;
    return pool.members.find((m) => this.store.open(m.sealed, pool.name) === member)?.pk;
  }
}

/** A member's health from its session record: the governor's view, never a call to the platform. */
export function stateOf(record: SessionRecord | undefined, now: number): Pick<MemberView, 'state' | 'reason' | 'until'> {
  if (!record) return { state: 'quarantined', reason: 'revoked' };
  if ((record.throttledUntil ?? 0) > now) return { state: 'cooling', reason: 'throttled', until: record.throttledUntil };
  if (record.state === 'challenge' || record.state === 'logged_out') return { state: 'quarantined', reason: record.state };
  return { state: 'healthy' };
}

function mergeMembers(current: readonly StoredMember[], added: readonly StoredMember[]): StoredMember[] {
  const byPk = new Map(current.map((m) => [m.pk, m]));
  for (const member of added) byPk.set(member.pk, member);
  return [...byPk.values()];
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw invalidParams([{ param: 'pool', problem: 'a pool name is 1 to 64 letters, digits, dots, dashes or underscores' }]);
}
