// One instance's account-safety policy: the settings, the shared counters (opened on first use),
// the hot path's ledger and each session's own choices, cached for the session-record TTL.
import { sessionRef } from '../../engine/session-record.js';
import { serviceError } from '../../engine/service-errors.js';
import type { ActionClass, BudgetPeek, Config, SessionRecord, Services } from '../../engine/types.js';
import { openCounters, type CounterStore } from './counters.js';
import { Ledger, SLOTS, type Standing, type Tier, type Verdict } from './ledger.js';
import { policySettings, type Limits, type PolicySettings } from './presets.js';
import { effectiveLimits, parseSessionPolicy, untilWindowOpens, warmupOf, windowOpenUntil, type SessionPolicy } from './rules.js';

export type RefusalReason = 'budget' | 'window';

/** A session's ref (a SHA-256) once per cached record, not once per call. */
const refs = new WeakMap<SessionRecord, string>();
function refOf(record: SessionRecord): string {
  let ref = refs.get(record);
  if (ref === undefined) refs.set(record, (ref = sessionRef(record.id)));
  return ref;
}

export class Policy implements BudgetPeek {
  readonly settings: PolicySettings;
  readonly ledger: Ledger;
  private opened?: Promise<CounterStore>;
  private readonly own = new Map<string, { readonly value: SessionPolicy; readonly at: number }>();
  /** Sessions whose own policy is being read again behind their calls. */
  private readonly refreshing = new Set<string>();
  /** By session ref, then by the ledger's SLOTS name. */
  private readonly limits = new Map<string, Map<string, { readonly own: SessionPolicy; readonly limits: Limits; readonly until: number }>>();
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
    if (this.own.size > 100_000) this.own.clear();
    this.own.set(ref, { value, at: this.now() });
    return value;
  }

  private cachedPolicy(ref: string): SessionPolicy | undefined {
    const held = this.own.get(ref);
    return held && this.now() - held.at < this.ttlMs ? held.value : undefined;
  }

  async saveSessionPolicy(ref: string, value: SessionPolicy): Promise<void> {
    await (await this.store()).saveSettings(ref, JSON.stringify(value));
    this.own.set(ref, { value, at: this.now() });
    this.ledger.forget(ref);
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
  admit(record: SessionRecord, cls: ActionClass, tier: Tier): Standing | undefined | Promise<Standing | undefined> {
    const ref = refOf(record);
    const held = this.own.get(ref);
    if (!held) return this.readPolicy(ref).then((read) => this.admitWith(record, ref, read, cls, tier, this.now()));
    const now = this.now();
    // A session's own policy older than the cache's trust is read again behind the call, never
    // waited for: a store that is slow or down does not hold up (or refuse) a cached session.
    if (now - held.at >= this.ttlMs) this.refreshBehind(ref);
    return this.admitWith(record, ref, held.value, cls, tier, now);
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
    ref: string,
    own: SessionPolicy,
    cls: ActionClass,
    tier: Tier,
    now: number,
  ): Standing | undefined | Promise<Standing | undefined> {
    if (own.window) this.checkWindow(record, cls, own, now);
    const verdict = this.ledger.take(ref, cls, tier, this.cachedLimits(record, ref, cls, own, tier, now), now);
    return verdict instanceof Promise ? verdict.then((settled) => this.settle(settled, cls, tier)) : this.settle(verdict, cls, tier);
  }

  private settle(verdict: Verdict | undefined, cls: ActionClass, tier: Tier): Standing | undefined {
    if (!verdict || verdict.admitted) return verdict;
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
    return this.ledger.spentUntil(refOf(record), cls, background ? 'background' : 'interactive');
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
