// What the ledger holds for one session's class and tier in one minute (an Entry), the verdict a
// call gets, the counters' names and the pure steps over an entry: making it, finding its tightest
// window, and answering from it. The ledger (./ledger.ts) does the reserving and the giving back.
import { ACTION_CLASSES, type ActionClass } from '../../engine/types.js';
import type { CounterKey } from './counters.js';
import { WINDOW_MS, WINDOWS, type Limits, type PolicyWindow } from './presets.js';

export type Tier = 'interactive' | 'background';

/** What a counted call carries back: the tightest window of its class as the rate-limit headers give it. */
export interface Standing {
  readonly window: PolicyWindow;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: number;
}

/** A call's answer: admitted or not, with the standing it leaves (one object per call). */
export interface Verdict extends Standing {
  readonly admitted: boolean;
}

/**
 * What this instance holds for one session's class and tier in one minute. It is also the verdict
 * a call spending a held slot gets (its standing kept up to date here), so that call allocates
 * nothing: a consumer reads it at once, before the session's next call moves it.
 */
export interface Entry extends Verdict {
  readonly ref: string;
  readonly cls: ActionClass;
  readonly minute: number;
  /** When its minute ends (epoch ms): past it, the entry is replaced. */
  readonly endsAt: number;
  readonly limits: Limits;
  readonly windows: readonly PolicyWindow[];
  /** The counters of its windows, in the order of `windows`: one set for the whole minute (a minute lies in one hour and one UTC day). */
  readonly keys: readonly CounterKey[];
  slots: number;
  /** The store's totals after the last reservation, in the order of `windows`; undefined until the first. */
  totals?: readonly number[];
  exhausted?: Verdict;
  /**
   * The batch the totals allow, reserved behind the calls once no more than half of it is held;
   * −1 while it is too small to reserve ahead (before the first totals, and near a limit).
   */
  aheadBatch: number;
  /** The batch being reserved behind the calls, while it is. */
  ahead?: Promise<void>;
  /** Replaced (its minute ended, its limits changed) or closed: slots granted to it now are given back. */
  retired?: boolean;
  /** The tightest window's limit less its total: its remaining count is this plus the slots held. */
  base: number;
  window: PolicyWindow;
  limit: number;
  remaining: number;
  resetAt: number;
}

export const windowStart = (window: PolicyWindow, now: number): number => now - (now % WINDOW_MS[window]);
export const windowReset = (window: PolicyWindow, now: number): number => windowStart(window, now) + WINDOW_MS[window];

/** The counter of a session's class in the window holding `now`; kept a minute past its end. */
export function counterKey(ref: string, cls: ActionClass, window: PolicyWindow, now: number): CounterKey {
  const start = windowStart(window, now);
  return { key: `${ref}:${cls}:${window}:${start}`, expiresAt: start + WINDOW_MS[window] + 60_000 };
}

/**
 * A class and tier's number: the key of its ledger entry and of its cached limits, and its place in
 * the hot path's array of a session's entries (one numbering for all three, made once).
 */
export const SLOTS: Readonly<Record<Tier, Readonly<Record<string, number>>>> = {
  interactive: Object.fromEntries(ACTION_CLASSES.map((cls, i) => [cls, i])),
  background: Object.fromEntries(ACTION_CLASSES.map((cls, i) => [cls, ACTION_CLASSES.length + i])),
};

/** The windows a class's limits name, listed once per limits object (they are cached a minute per session and class). */
const windowLists = new WeakMap<Limits, readonly PolicyWindow[]>();
export function windowsOf(limits: Limits): readonly PolicyWindow[] {
  let windows = windowLists.get(limits);
  if (!windows) windowLists.set(limits, (windows = WINDOWS.filter((window) => limits[window] !== undefined)));
  return windows;
}

export const sameLimits = (a: Limits, b: Limits): boolean => a === b || (a.minute === b.minute && a.hour === b.hour && a.day === b.day);

export function newEntry(ref: string, cls: ActionClass, minute: number, limits: Limits, windows: readonly PolicyWindow[], exhausted?: Verdict): Entry {
  const start = minute * WINDOW_MS.minute;
  const entry: Entry = {
    ref,
    cls,
    minute,
    endsAt: start + WINDOW_MS.minute,
    limits,
    windows,
    keys: windows.map((window) => counterKey(ref, cls, window, start)),
    slots: 0,
    totals: undefined,
    exhausted,
    aheadBatch: -1,
    ahead: undefined,
    retired: false,
    admitted: true,
    base: 0,
    window: windows[0],
    limit: 0,
    remaining: 0,
    resetAt: 0,
  };
  tighten(entry);
  return entry;
}

/**
 * The window with the fewest calls left (the shortest on a tie), as this instance counts them. The
 * slots held count for every window alike, so which window is tightest moves only with the totals.
 */
export function tighten(entry: Entry): void {
  let best = entry.windows[0];
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < entry.windows.length; i++) {
    const left = headroomOf(entry, i);
    if (left >= least) continue;
    best = entry.windows[i];
    least = left;
  }
  entry.window = best;
  entry.limit = entry.limits[best]!;
  entry.base = least;
  // Windows are aligned (a minute lies in one hour and one day), so any moment of the entry's minute gives the same reset.
  entry.resetAt = windowReset(best, entry.minute * WINDOW_MS.minute);
}

/** What the store has not counted of window `i`'s limit (the whole limit before the first reservation). */
export const headroomOf = (entry: Entry, i: number): number => entry.limits[entry.windows[i]]! - (entry.totals?.[i] ?? 0);

/** The calls the entry's tightest window has left: what the store has not counted, plus the slots held. */
export const remainingOf = (entry: Entry): number => Math.max(0, entry.base + entry.slots);

/** A verdict of its own, for a call that waited (the entry moves on while its answer travels). */
export const snapshot = (entry: Entry): Verdict => ({
  admitted: true,
  window: entry.window,
  limit: entry.limit,
  remaining: remainingOf(entry),
  resetAt: entry.resetAt,
});

/** The longest window that is full: the one whose reset lets the next call through. */
export function spentWindow(entry: Entry, now: number): Verdict {
  const full = entry.windows.filter((_, i) => headroomOf(entry, i) <= 0);
  const window = full[full.length - 1] ?? entry.windows[0];
  return { admitted: false, window, limit: entry.limits[window]!, remaining: 0, resetAt: windowReset(window, now) };
}
