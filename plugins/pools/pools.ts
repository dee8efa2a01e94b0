// Pools: named groups of sessions that read work (jobs, GET routes naming X-Pool) is spread over.
// A member's health is its session record's: active (and not inside a governor back-off) is
// healthy; throttled cools down until the governor's time; a challenge, a logged-out or a revoked
// session is quarantined until it is resolved. Members keep their own proxies (their sessions').
// Session ids are secrets: the work store keeps them sealed, answers name members by account.
import type { HttpError } from '../../engine/http-error.js';
import { invalidParams } from '../../engine/service-errors.js';
import { serviceError } from './errors.js';
import { checkAccount, entitledToPool, owns, ownerOf } from '../../engine/owner.js';
import type { BudgetPeek, Caller, Owner, PoolChooser, SessionRecord, SessionService, WorkStore } from '../../engine/types.js';
import { healthOf } from '../../adapters/work/toolkit/index.js';

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
  /** Who made it (absent on pools made before owners were kept: the operator's alone). */
  readonly owner?: Owner;
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

  constructor(
    private readonly store: WorkStore,
    private readonly sessions: SessionService,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly budgets: () => BudgetPeek | undefined = () => undefined,
  ) {}

  /**
   * Creates the pool or adds to it. With a caller: another owner's pool of that name is refused
   * (409: names are shared by every owner), and every member must be an account the key may use.
   */
  async create(name: string, sessionIds: readonly string[], caller?: Caller): Promise<{ name: string; members: MemberView[] }> {
    checkName(name);
    const existing = caller ? await this.store.get<StoredPool>(BUCKET, name) : undefined;
    if (existing && !owns(caller, existing.owner)) throw serviceError('PoolNameTaken', `The pool name "${name}" is taken; choose another`);
    const members = await Promise.all(sessionIds.map((id) => this.memberFor(name, id, caller)));
    const unique = [...new Map(members.map((m) => [m.pk, m])).values()];
    const owner = ownerOf(caller);
    await this.store.update<StoredPool>(BUCKET, name, (current) => ({
      name,
      created_at: current?.created_at ?? this.now(),
      owner: current ? current.owner : owner,
      members: mergeMembers(current?.members ?? [], unique),
    }));
    this.cache.delete(name);
    return this.view(name);
  }

  async addMember(name: string, sessionId: string, caller?: Caller): Promise<{ name: string; members: MemberView[] }> {
    await this.owned(name, caller);
    return this.create(name, [sessionId], caller);
  }

  async removeMember(name: string, member: string, caller?: Caller): Promise<{ name: string; members: MemberView[] }> {
    const pool = await this.owned(name, caller);
    const pk = await this.pkOf(pool, member);
    if (!pk) throw serviceError('PoolMemberNotFound', `Pool "${name}" has no member ${member.length > 24 ? 'with that session' : `"${member}"`}`);
    await this.store.update<StoredPool>(BUCKET, name, (current) => current && { ...current, members: current.members.filter((m) => m.pk !== pk) });
    this.cache.delete(name);
    return this.view(name);
  }

  /** False for no pool of that name (or another owner's). */
  async remove(name: string, caller?: Caller): Promise<boolean> {
    this.cache.delete(name);
    const pool = caller ? await this.store.get<StoredPool>(BUCKET, name) : undefined;
    if (caller && (!pool || !owns(caller, pool.owner))) return false;
    return this.store.delete(BUCKET, name);
  }

  /** Every pool, or with a caller the ones it owns or may read through. */
  async list(caller?: Caller): Promise<{ name: string; members: MemberView[] }[]> {
    const pools = (await this.store.list<StoredPool>(BUCKET)).map((p) => p.value);
    return Promise.all(pools.filter((p) => !caller || entitledToPool(caller, p.name, p.owner)).map((p) => this.viewOf(p)));
  }

  async view(name: string, caller?: Caller): Promise<{ name: string; members: MemberView[] }> {
    const pool = await this.load(name, true);
    if (caller && !entitledToPool(caller, name, pool.owner)) throw notFound(name);
    return this.viewOf(pool);
  }

  /** A healthy member, in turn; 429 (some member cools down) or 503 (all quarantined) otherwise. */
  async choose(name: string, caller?: Caller): Promise<SessionRecord> {
    const pool = await this.load(name);
    if (caller && !entitledToPool(caller, name, pool.owner)) throw notFound(name);
    const checked = await Promise.all(pool.members.map((m) => this.health(pool.name, m)));
    // A member whose read budget is spent (the background share for jobs, which ask with no caller) sits this call out.
    const spent = (c: (typeof checked)[number]) => this.budgets()?.spentUntil(c.record!, 'read', !caller);
    const healthy = checked.filter((c) => c.view.state === 'healthy');
    const ready = healthy.filter((c) => !spent(c));
    if (healthy.length && !ready.length)
      throw this.allSpent(
        name,
        healthy.map((c) => spent(c)!),
      );
    if (ready.length) {
      const next = (this.turn.get(name) ?? 0) % ready.length;
      this.turn.set(name, next + 1);
      return ready[next].record!;
    }
    throw this.noneHealthy(
      name,
      checked.map((c) => c.view),
    );
  }

  /** Each pool's members by state, for /metrics. */
  async census(): Promise<{ pool: string; state: MemberState; count: number }[]> {
    const rows: { pool: string; state: MemberState; count: number }[] = [];
    for (const pool of await this.list()) {
      for (const state of ['healthy', 'cooling', 'quarantined'] as const)
        rows.push({ pool: pool.name, state, count: pool.members.filter((m) => m.state === state).length });
    }
    return rows;
  }

  private allSpent(name: string, until: readonly number[]): HttpError {
    const seconds = Math.max(1, Math.ceil((Math.min(...until) - this.now()) / 1000));
    return serviceError('PoolThrottled', `Every healthy member of pool "${name}" has spent its read budget; the first has budget again in ${seconds} s`, {
      retryAfter: seconds,
    });
  }

  private noneHealthy(name: string, members: readonly MemberView[]): HttpError {
    const cooling = members.filter((m) => m.state === 'cooling').map((m) => m.until ?? 0);
    if (cooling.length) {
      const seconds = Math.max(1, Math.ceil((Math.min(...cooling) - this.now()) / 1000));
      return serviceError('PoolThrottled', `No member of pool "${name}" is healthy: the platform throttled them; the first is back in ${seconds} s`, {
        retryAfter: seconds,
      });
    }
    const detail = members.length ? `every member of pool "${name}" is quarantined (challenge or logged out)` : `pool "${name}" has no members`;
    return serviceError('PoolUnavailable', `No member of pool "${name}" is healthy: ${detail}`);
  }

  private async health(pool: string, member: StoredMember): Promise<{ view: MemberView; record?: SessionRecord }> {
    const id = this.store.open(member.sealed, pool);
    const record = this.sessions.peek(id) ?? (await this.sessions.find(id));
    return { view: { pk: member.pk, username: member.username, ...healthOf(record, this.now()) }, record };
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
    if (!pool) throw notFound(name);
    this.cache.set(name, { pool, at: this.now() });
    return pool;
  }

  /** The pool when the caller owns it (to change it); 404 as an unknown one otherwise. */
  private async owned(name: string, caller: Caller | undefined): Promise<StoredPool> {
    const pool = await this.load(name, true);
    if (caller && !owns(caller, pool.owner)) throw notFound(name);
    return pool;
  }

  private async memberFor(pool: string, sessionId: string, caller?: Caller): Promise<StoredMember> {
    const record = await this.sessions.find(sessionId);
    if (!record) throw invalidParams([{ param: 'sessions', problem: 'unknown or revoked session' }]);
    checkAccount(caller?.key, record.account);
    return { sealed: this.store.seal(sessionId, pool), pk: record.account.pk, username: record.account.username, added_at: this.now() };
  }

  /** A member named by account pk, username or session id. */
  private async pkOf(pool: StoredPool, member: string): Promise<string | undefined> {
    const direct = pool.members.find((m) => m.pk === member || m.username === member);
    if (direct) return direct.pk;
    return pool.members.find((m) => this.store.open(m.sealed, pool.name) === member)?.pk;
  }
}

function mergeMembers(current: readonly StoredMember[], added: readonly StoredMember[]): StoredMember[] {
  const byPk = new Map(current.map((m) => [m.pk, m]));
  for (const member of added) byPk.set(member.pk, member);
  return [...byPk.values()];
}

const notFound = (name: string) => serviceError('PoolNotFound', `No pool named "${name}"`);

function checkName(name: string): void {
  if (!NAME.test(name)) throw invalidParams([{ param: 'pool', problem: 'a pool name is 1 to 64 letters, digits, dots, dashes or underscores' }]);
}
