// One instance's account-safety policy: the settings, the shared counters (opened on first use),
// the hot path's ledger and each session's own choices, cached for the session-record TTL.
import { sessionRef } from '../../engine/session-record.js';
import { serviceError } from '../../engine/service-errors.js';
import type { ActionClass, BudgetPeek, Config, SessionRecord, Services } from '../../engine/types.js';
import { openCounters, type CounterStore } from './counters.js';
import { SLOTS, windowReset, type Entry, type Standing, type Tier, type Verdict } from './entry.js';
import { Ledger } from './ledger.js';
import { policySettings, WINDOW_MS, type Limits, type PolicySettings } from './presets.js';
import { effectiveLimits, parseSessionPolicy, untilWindowOpens, warmupOf, windowOpenUntil, type SessionPolicy } from './rules.js';

export type RefusalReason = 'budget' | 'window';

/** A session's own choices as read from the store, and when; `replaced` once a newer read or a PATCH took its place. */
interface Held {
  readonly value: SessionPolicy;
  readonly at: number;
  replaced?: boolean;
}

/**
 * What a session record's calls need on the hot path, found with one lookup: its ref (a SHA-256,
 * made once per cached record), its choices, and per class and tier the ledger's entry it spends
 * from, or until when it knows the class has no budget. A call that finds all of it current touches
 * these few objects and nothing else (under load, what a call costs here is mostly what it has to
 * fetch from memory: the lookups of the slow path cost several times their instructions).
 */
interface Hot {
  readonly ref: string;
  held?: Held;
  readonly slots: (Entry | number | undefined)[];
}

export class Policy implements BudgetPeek {
  readonly settings: PolicySettings;
  readonly ledger: Ledger;
  private opened?: Promise<CounterStore>;
  private readonly own = new Map<string, Held>();
  private readonly hot = new WeakMap<SessionRecord, Hot>();
  /** Sessions whose own policy is being read again behind their calls. */
  private readonly refreshing = new Set<string>();
  /** By session ref, then by SLOTS number. */
  private readonly limits = new Map<string, Map<number, { readonly own: SessionPolicy; readonly limits: Limits; readonly until: number }>>();
  /** Until when a session's activity window is known open (epoch ms), by its choices' object: no clock arithmetic per call. */
  private readonly openUntil = new WeakMap<SessionPolicy, { readonly timezone: number | undefined; readonly from: number; readonly until: number }>();
  private readonly ttlMs: number;
  private readonly refused?: (labels: Readonly<Record<string, string>>) => void;

  constructor(
    private readonly config: Config,
    readonly now: () => number,
    services?: Services,
    counters?: CounterStore,
  ) {
    this.settings = policySettings(config.policy, config.extra);
    this.ttlMs = config.sessionCacheTtlMs;
    if (counters) this.opened = Promise.resolve(counters);
    this.ledger = new Ledger(() => this.store(), now);
    const help = 'Calls the account-safety policy refused before the platform, by action class and reason (budget, window)';
    this.refused = services?.app.counter('socialgate_policy_refusals_total', help, ['class', 'reason']);
  }

  /**
   * Opens the counters behind the boot, so a session's first counted call does not wait for the
   * connection and the tables. A store that is down here is met, by name, by the calls that need it.
   */
  warm(): void {
    this.store()
      .then((store) => store.open())
      .catch(() => undefined);
  }

  store(): Promise<CounterStore> {
    this.opened ??= openCounters(this.config);
    return this.opened;
  }

  /** A session's own choices (PATCH /policy); read from the store once per TTL. */
  async sessionPolicy(ref: string): Promise<SessionPolicy> {
    return this.cachedPolicy(ref) ?? this.readPolicy(ref);
  }

  private async readPolicy(ref: string): Promise<SessionPolicy> {
    const value = parseSessionPolicy(await (await this.store()).settings(ref));
    if (this.own.size > 100_000) this.clearOwn();
    this.hold(ref, value);
    return value;
  }

  private cachedPolicy(ref: string): SessionPolicy | undefined {
    const held = this.own.get(ref);
    return held && this.now() - held.at < this.ttlMs ? held.value : undefined;
  }

  async saveSessionPolicy(ref: string, value: SessionPolicy): Promise<void> {
    await (await this.store()).saveSettings(ref, JSON.stringify(value));
    this.hold(ref, value);
    this.ledger.forget(ref);
  }

  /** A session's choices, newly read or saved: the hot path's copies of the older ones stop being trusted. */
  private hold(ref: string, value: SessionPolicy): void {
    const older = this.own.get(ref);
    if (older) older.replaced = true;
    this.own.set(ref, { value, at: this.now() });
  }

  private clearOwn(): void {
    for (const held of this.own.values()) held.replaced = true;
    this.own.clear();
  }

  /** The limits a class has for a session now; background work leaves the interactive share (rounded down) alone. */
  limitsFor(record: SessionRecord, cls: ActionClass, own: SessionPolicy, tier: Tier): Limits {
    const limits = effectiveLimits(cls, own, this.settings, warmupOf(record, own, this.settings, this.now()));
    if (tier === 'interactive') return limits;
    const share = this.settings.interactiveShare;
    return Object.fromEntries(Object.entries(limits).map(([window, limit]) => [window, limit - Math.floor(limit * share)]));
  }

  /** limitsFor, kept a minute per session, class and tier (the warm-up moves by the day) until the session's choices change. */
  private cachedLimits(record: SessionRecord, ref: string, cls: ActionClass, own: SessionPolicy, tier: Tier, now: number): Limits {
    let session = this.limits.get(ref);
    const held = session?.get(SLOTS[tier][cls]);
    if (held && held.own === own && held.until > now) return held.limits;
    const limits = this.limitsFor(record, cls, own, tier);
    if (!session) {
      if (this.limits.size > 100_000) this.limits.clear();
      this.limits.set(ref, (session = new Map()));
    }
    session.set(SLOTS[tier][cls], { own, limits, until: now + 60_000 });
    return limits;
  }

  /**
   * Refuses before any upstream call, or answers the standing the rate-limit headers show (undefined:
   * no budget). Synchronous while the session's choices are cached and a reserved slot is held.
   */
  admit(record: SessionRecord, cls: ActionClass, tier: Tier, now = this.now()): Standing | undefined | Promise<Standing | undefined> {
    const hot = this.hot.get(record);
    const held = hot?.held;
    // The hot path: the choices current and trusted, no activity window to check, the slot's entry held.
    if (held !== undefined && !held.replaced && now - held.at < this.ttlMs && held.value.window === undefined) {
      const slot = hot!.slots[SLOTS[tier][cls]];
      if (typeof slot === 'number') {
        if (now < slot && now >= slot - WINDOW_MS.minute) return undefined;
      } else if (slot !== undefined) {
        const spent = this.ledger.spend(slot, now);
        if (spent !== undefined) return spent;
      }
    }
    return this.admitSlow(record, hot ?? this.hotFor(record), cls, tier, now);
  }

  private hotFor(record: SessionRecord): Hot {
    const hot: Hot = { ref: sessionRef(record.id), held: undefined, slots: [] };
    this.hot.set(record, hot);
    return hot;
  }

  private admitSlow(record: SessionRecord, hot: Hot, cls: ActionClass, tier: Tier, now: number): Standing | undefined | Promise<Standing | undefined> {
    const ref = hot.ref;
    const held = this.own.get(ref);
    if (!held) return this.readPolicy(ref).then((read) => this.admitWith(record, hot, read, cls, tier, this.now()));
    // A session's own policy older than the cache's trust is read again behind the call, never
    // waited for: a store that is slow or down does not hold up (or refuse) a cached session.
    if (now - held.at >= this.ttlMs) this.refreshBehind(ref);
    hot.held = held;
    return this.admitWith(record, hot, held.value, cls, tier, now);
  }

  /** Reads a session's own policy again in the background, once at a time per session; a failure keeps the one held. */
  private refreshBehind(ref: string): void {
    if (this.refreshing.has(ref)) return;
    this.refreshing.add(ref);
    void this.readPolicy(ref)
      .catch(() => undefined)
      .finally(() => this.refreshing.delete(ref));
  }

  private admitWith(
    record: SessionRecord,
    hot: Hot,
    own: SessionPolicy,
    cls: ActionClass,
    tier: Tier,
    now: number,
  ): Standing | undefined | Promise<Standing | undefined> {
    if (own.window) this.checkWindow(record, cls, own, now);
    const verdict = this.ledger.take(hot.ref, cls, tier, this.cachedLimits(record, hot.ref, cls, own, tier, now), now);
    if (verdict instanceof Promise) return verdict.then((settled) => this.settle(settled, hot, cls, tier));
    return this.settle(verdict, hot, cls, tier, now);
  }

  private settle(verdict: Verdict | undefined, hot: Hot, cls: ActionClass, tier: Tier, now?: number): Standing | undefined {
    if (!verdict) {
      // No budget for the class: known until the minute ends (the limits are looked at again then).
      if (now !== undefined) hot.slots[SLOTS[tier][cls]] = windowReset('minute', now);
      return undefined;
    }
    if (verdict.admitted) {
      hot.slots[SLOTS[tier][cls]] = this.ledger.current(hot.ref, cls, tier);
      return verdict;
    }
    this.refused?.({ class: cls, reason: 'budget' });
    throw budgetExceeded(cls, verdict, this.now(), tier);
  }

  /** Refuses outside the session's activity window; while it is known open, one comparison. */
  private checkWindow(record: SessionRecord, cls: ActionClass, own: SessionPolicy, now: number): void {
    if (cls === 'read' && this.settings.windowReads === 'allow') return;
    const known = this.openUntil.get(own);
    // A clock moved back (tests) re-checks too.
    if (known && known.timezone === record.timezone && now < known.until && now >= known.from) return;
    const until = windowOpenUntil(record, own, now);
    if (until > now) {
      this.openUntil.set(own, { timezone: record.timezone, from: now, until });
      return;
    }
    const wait = untilWindowOpens(record, own, now);
    this.refused?.({ class: cls, reason: 'window' });
    const opensAt = new Date(now + wait).toISOString();
    throw serviceError(
      'OutsideActivityWindow',
      `The session's activity window (${own.window!.start}-${own.window!.end} in its timezone) is closed: ${cls} calls wait until it opens at ${opensAt}`,
      {
        retryAfter: Math.max(1, Math.ceil(wait / 1000)),
        extra: { action_class: cls, window_start: own.window!.start, window_end: own.window!.end, opens_at: opensAt },
      },
    );
  }

  spentUntil(record: SessionRecord, cls: ActionClass, background: boolean): number | undefined {
    return this.ledger.spentUntil((this.hot.get(record) ?? this.hotFor(record)).ref, cls, background ? 'background' : 'interactive');
  }

  /** Gives this instance's unspent slots back (and stops the ledger's sweep), then closes the counters. */
  async close(): Promise<void> {
    await this.ledger.close();
    if (this.opened) await (await this.opened.catch(() => undefined))?.close();
  }
}

function budgetExceeded(cls: ActionClass, standing: Standing, now: number, tier: Tier) {
  const resetAt = new Date(standing.resetAt).toISOString();
  const whose = tier === 'background' ? ' (background work leaves a share of it to interactive calls)' : '';
  return serviceError(
    'ActionBudgetExceeded',
    `The ${cls} budget of this session is spent for this ${standing.window}: ${standing.limit} calls${whose}; it resets at ${resetAt}`,
    {
      retryAfter: Math.max(1, Math.ceil((standing.resetAt - now) / 1000)),
      extra: { action_class: cls, window: standing.window, limit: standing.limit, reset_at: resetAt },
    },
  );
}
