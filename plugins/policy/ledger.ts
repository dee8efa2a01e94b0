// The budgets' hot path. A call spends a slot this instance already holds (no store round trip);
// when it holds none it reserves a few from the shared counters in one atomic add to every window
// of the class, keeps what the limits allow and gives the rest back. While the headroom is large, the
// next batch is reserved behind the calls once half of the held one is spent, so a busy session's
// calls do not wait for the store at all within a minute (only the minute's first does). So:
//   - never over-admission: a slot exists only once the store's total, with it, was within every limit;
//   - near a limit the batch is one slot and nothing is reserved ahead, so two instances sharing 12
//     likes admit exactly 12;
//   - slots an instance reserved and did not spend before its minute ended (or its limits changed,
//     or it closed) are given back to the hour and the day behind the calls, so they count as used
//     only until the give-back lands; the bounded error is what a give-back cannot return: the slots
//     of an instance that died, or whose store failed the give-back, count as used in the hour and
//     day (at most 3/16 of the headroom left when they were reserved, and never more than
//     MAX_BATCH * 1.5 = 384 per class, instance and minute; a batch of 256 needs a minute's headroom
//     of 2,048 calls: the presets' limits keep batches under 16).
// Windows are fixed (minute, hour, UTC day), so every instance names the same counters.
import type { ActionClass } from '../../engine/types.js';
import { settledWithin } from '../../adapters/work/toolkit/index.js';
import type { CounterStore } from './counters.js';
import {
  headroomOf,
  newEntry,
  remainingOf,
  sameLimits,
  SLOTS,
  snapshot,
  spentWindow,
  tighten,
  windowsOf,
  type Entry,
  type Tier,
  type Verdict,
} from './entry.js';
import { WINDOW_MS, type Limits, type PolicyWindow } from './presets.js';

/**
 * The largest batch. A reservation is cold code under load: timed in the bench's server, the call
 * that starts one took 37-62 µs more than the others (cache misses, not instructions: in a loop the
 * same reservation takes 3 µs), so at 64 slots a batch it cost a busy session 0.6-0.9 µs a call on
 * average; at 256, a quarter of that, and a quarter of the store's round trips. The bound it puts
 * on the error above matters only for limits over 512 calls a minute.
 */
export const MAX_BATCH = 256;
/** How long a close waits for its give-backs. */
const CLOSE_WAIT_MS = 2_000;
/** The smallest batch reserved ahead: below it (near a limit) every slot is reserved when it is needed. */
const AHEAD_MIN_BATCH = 4;
/** Entries of sessions not seen for a while are dropped past this many (a bound on memory, not on correctness). */
const MAX_ENTRIES = 100_000;

export class Ledger {
  /** By session ref, then by SLOTS number. */
  private readonly entries = new Map<string, Map<number, Entry>>();

  /** Give-backs on their way (awaited by close). */
  private readonly givingBack = new Set<Promise<unknown>>();

  /** Once a minute: entries of a minute that ended are retired, so a session that went quiet gets its slots back too. */
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly store: () => Promise<CounterStore>,
    private readonly now: () => number,
  ) {
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS.minute).unref();
  }

  /**
   * Spends one slot of the class's budget under `limits`, or says which window is spent and until
   * when. Synchronous while this instance holds a slot (no promise on the hot path).
   */
  take(ref: string, cls: ActionClass, tier: Tier, limits: Limits, now = this.now()): Verdict | undefined | Promise<Verdict | undefined> {
    const windows = windowsOf(limits);
    if (windows.length === 0) return undefined;
    const entry = this.entryFor(ref, cls, SLOTS[tier][cls], now, limits, windows);
    if (entry.exhausted && entry.exhausted.resetAt > now) return entry.exhausted;
    entry.exhausted = undefined;
    return this.spend(entry, now) ?? this.reserveFor(entry, tier, now);
  }

  /**
   * The hot path: spends a slot the entry holds, while it is current, and answers the entry itself
   * as the verdict; undefined when it holds none (then take() reserves). No lookup, no allocation.
   */
  spend(entry: Entry, now: number): Entry | undefined {
    if (entry.slots <= 0 || entry.retired || now >= entry.endsAt || now < entry.minute * WINDOW_MS.minute || entry.exhausted) return undefined;
    entry.slots--;
    entry.remaining = remainingOf(entry);
    if (!entry.ahead && entry.slots * 2 <= entry.aheadBatch) this.reserveAhead(entry);
    return entry;
  }

  /** The entry a session's class and tier has now (the hot path keeps it), if any. */
  current(ref: string, cls: ActionClass, tier: Tier): Entry | undefined {
    const entry = this.entries.get(ref)?.get(SLOTS[tier][cls]);
    return entry?.retired ? undefined : entry;
  }

  private reserveFor(entry: Entry, tier: Tier, now: number): Promise<Verdict | undefined> {
    // A batch on its way is waited for rather than raced by another.
    if (entry.ahead) return entry.ahead.then(() => this.take(entry.ref, entry.cls, tier, entry.limits, this.now()));
    return this.reserve(entry, now);
  }

  /**
   * Once half of a large batch is spent, the next is reserved behind the calls: one in flight per
   * entry; a store that fails it leaves the calls to reserve for themselves (and to fail by name).
   */
  private reserveAhead(entry: Entry): void {
    entry.ahead = this.grant(entry, entry.aheadBatch).then(
      ({ granted, totals }) => {
        this.totalsAre(entry, totals);
        entry.ahead = undefined;
        this.keep(entry, granted);
      },
      () => {
        entry.ahead = undefined;
      },
    );
  }

  /** Until when this instance knows the class's budget is spent for the session (no store call); undefined otherwise. */
  spentUntil(ref: string, cls: ActionClass, tier: Tier): number | undefined {
    const until = this.entries.get(ref)?.get(SLOTS[tier][cls])?.exhausted?.resetAt;
    return until !== undefined && until > this.now() ? until : undefined;
  }

  /** Forgets what this instance holds for a session (its limits changed), giving its unspent slots back. */
  forget(ref: string): void {
    for (const entry of this.entries.get(ref)?.values() ?? []) this.retire(entry);
    this.entries.delete(ref);
  }

  /** Gives every unspent slot back (the app closes), and waits for the give-backs (CLOSE_WAIT_MS at most: a store that hangs does not hold the close). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.clearAll();
    await settledWithin([...this.givingBack], CLOSE_WAIT_MS);
  }

  private entryFor(ref: string, cls: ActionClass, slot: number, now: number, limits: Limits, windows: readonly PolicyWindow[]): Entry {
    const minute = Math.floor(now / WINDOW_MS.minute);
    let session = this.entries.get(ref);
    const held = session?.get(slot);
    if (held && held.minute === minute && sameLimits(held.limits, limits)) return held;
    if (!session) {
      if (this.entries.size >= MAX_ENTRIES) this.clearAll();
      this.entries.set(ref, (session = new Map()));
    }
    if (held) this.retire(held);
    const same = held !== undefined && sameLimits(held.limits, limits);
    const entry = newEntry(ref, cls, minute, limits, windows, same ? held.exhausted : undefined);
    session.set(slot, entry);
    return entry;
  }

  /** Retires the entries whose minute ended (a busy session's are replaced by its next call anyway). */
  sweep(): void {
    const minute = Math.floor(this.now() / WINDOW_MS.minute);
    for (const [ref, session] of this.entries) {
      for (const [slot, entry] of session) {
        if (entry.minute >= minute || entry.exhausted) continue;
        this.retire(entry);
        session.delete(slot);
      }
      if (session.size === 0) this.entries.delete(ref);
    }
  }

  /** Past the bound on memory: every entry is dropped, its slots given back. */
  private clearAll(): void {
    for (const session of this.entries.values()) for (const entry of session.values()) this.retire(entry);
    this.entries.clear();
  }

  /** An entry left behind: its unspent slots go back now, and any granted to it later go back as they land. */
  private retire(entry: Entry): void {
    entry.retired = true;
    const slots = entry.slots;
    entry.slots = 0;
    this.giveBack(entry, slots);
  }

  /** Slots granted to an entry: held while it is current, given back once it is retired. */
  private keep(entry: Entry, slots: number): void {
    if (entry.retired) {
      this.giveBack(entry, slots);
      return;
    }
    entry.slots += slots;
    entry.remaining = remainingOf(entry);
  }

  /**
   * Unspent slots back to every window they were counted in that still runs (a minute that ended
   * keeps them: its counter is done), behind the calls. Never more than was reserved and not
   * admitted, so no window can be over-admitted by it; a store that fails it leaves them counted as
   * used (the bounded error).
   */
  private giveBack(entry: Entry, slots: number): void {
    if (slots <= 0) return;
    const minuteRuns = entry.minute === Math.floor(this.now() / WINDOW_MS.minute);
    const keys = entry.keys.filter((_, i) => entry.windows[i] !== 'minute' || minuteRuns);
    if (keys.length === 0) return;
    const giving = this.store()
      .then((store) => store.add(keys, -slots))
      .catch(() => undefined)
      .finally(() => this.givingBack.delete(giving));
    this.givingBack.add(giving);
  }

  private async reserve(entry: Entry, now: number): Promise<Verdict> {
    const { granted, totals } = await this.grant(entry, this.batchOf(entry));
    this.totalsAre(entry, totals);
    if (granted === 0) {
      entry.exhausted = spentWindow(entry, now);
      return entry.exhausted;
    }
    // Added, not set: calls that reserved side by side each keep what they were granted.
    this.keep(entry, granted - 1);
    return snapshot(entry);
  }

  /**
   * Reserves up to `want` slots in one atomic add, gives back what a limit refuses; answers how many
   * it kept and the totals after. It runs once in 256 counted calls while batches are full (more
   * often near a limit): the entry's keys are made with it, and the rest is plain loops (a profile
   * under load had this step at 0.4 µs a counted call when it made its keys and objects each time).
   */
  private async grant(entry: Entry, want: number): Promise<{ readonly granted: number; readonly totals: readonly number[] }> {
    const store = await this.store();
    let totals = await store.add(entry.keys, want);
    const granted = grantable(entry, totals, want);
    if (granted < want) totals = await store.add(entry.keys, granted - want);
    return { granted, totals };
  }

  /**
   * The store's totals after a reservation (keep() then counts its slots in): the tightest window,
   * the one the rate-limit headers show, and when the next batch is reserved ahead are worked out
   * here, once, so a call that spends a slot compares one number.
   */
  private totalsAre(entry: Entry, totals: readonly number[]): void {
    entry.totals = totals;
    tighten(entry);
    const batch = this.batchOf(entry);
    entry.aheadBatch = batch >= AHEAD_MIN_BATCH ? batch : -1;
  }

  /** One slot until the store's totals are known, then an eighth of the smallest headroom, up to MAX_BATCH. */
  private batchOf(entry: Entry): number {
    if (!entry.totals) return 1;
    let headroom = Number.POSITIVE_INFINITY;
    for (let i = 0; i < entry.windows.length; i++) headroom = Math.min(headroom, headroomOf(entry, i));
    return Math.max(1, Math.min(MAX_BATCH, Math.floor(headroom / 8)));
  }
}

/** How many of `want` slots every window's limit allows, given each window's total after adding all of them. */
function grantable(entry: Entry, totals: readonly number[], want: number): number {
  let granted = want;
  for (let i = 0; i < entry.windows.length; i++) granted = Math.min(granted, Math.max(0, entry.limits[entry.windows[i]]! - (totals[i] - want)));
  return granted;
}
