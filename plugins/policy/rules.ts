// A session's policy as it stands at a moment: its preset and overrides (PATCH /policy), the
// warm-up of a new session's write budgets, and its activity window in its own timezone. Pure.
import type { ActionClass, SessionRecord } from '../../engine/types.js';
import { presetLimits, WINDOWS, type Limits, type PolicySettings, type Preset } from './presets.js';

const DAY_MS = 86_400_000;

/** What a session chose for itself; every field optional (the service's settings otherwise). */
export interface SessionPolicy {
  readonly preset?: Preset;
  readonly limits?: Readonly<Partial<Record<ActionClass, Limits>>>;
  /** Local times "HH:MM" in the session's timezone; end before start spans midnight. */
  readonly window?: { readonly start: string; readonly end: string };
  readonly warmup?: { readonly start?: number; readonly days?: number };
}

export interface Warmup {
  readonly start: number;
  readonly days: number;
  /** Whole days since the session was made. */
  readonly day: number;
  readonly fraction: number;
}

export function warmupOf(record: SessionRecord, own: SessionPolicy, settings: PolicySettings, now: number): Warmup {
  const start = own.warmup?.start ?? settings.warmupStart;
  const days = own.warmup?.days ?? settings.warmupDays;
  const age = Math.max(0, now - record.createdAt) / DAY_MS;
  const fraction = days <= 0 ? 1 : Math.min(1, start + (1 - start) * (age / days));
  return { start, days, day: Math.floor(age), fraction };
}

export const presetOf = (own: SessionPolicy, settings: PolicySettings): Preset => own.preset ?? settings.preset;

/** The preset's limits for a class, ramped by the warm-up for writes; the session's overrides as given. */
export function effectiveLimits(cls: ActionClass, own: SessionPolicy, settings: PolicySettings, warmup: Warmup): Limits {
  const base = presetLimits(presetOf(own, settings))[cls];
  const ramp = cls === 'read' ? 1 : warmup.fraction;
  const limits: Limits = {};
  for (const window of WINDOWS) {
    const preset = base[window];
    if (preset !== undefined) limits[window] = Math.max(1, Math.floor(preset * ramp));
    const override = own.limits?.[cls]?.[window];
    if (override !== undefined) limits[window] = override;
  }
  return limits;
}

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * Milliseconds until the session's activity window opens: 0 when it is open now (or the session
 * has none). The session's timezone is its offset from UTC in seconds, as it logged in with.
 */
export function untilWindowOpens(record: SessionRecord, own: SessionPolicy, now: number): number {
  if (!own.window) return 0;
  const local = now + (record.timezone ?? 0) * 1000;
  const minute = Math.floor((local % DAY_MS) / 60_000);
  const start = minutesOf(own.window.start);
  const end = minutesOf(own.window.end);
  const open = start <= end ? minute >= start && minute < end : minute >= start || minute < end;
  if (open || start === end) return 0;
  const startOfMinute = local - (local % 60_000);
  return ((start - minute + 1440) % 1440) * 60_000 - (local - startOfMinute);
}

/**
 * Epoch ms until which the session's activity window stays open from `now` (its next closing
 * boundary; Infinity without a window or for one that never closes), or 0 while it is closed: the
 * guard keeps it and checks the window again only once the boundary has passed.
 */
export function windowOpenUntil(record: SessionRecord, own: SessionPolicy, now: number): number {
  if (!own.window) return Number.POSITIVE_INFINITY;
  if (untilWindowOpens(record, own, now) > 0) return 0;
  const start = minutesOf(own.window.start);
  const end = minutesOf(own.window.end);
  if (start === end) return Number.POSITIVE_INFINITY;
  const local = now + (record.timezone ?? 0) * 1000;
  const minute = Math.floor((local % DAY_MS) / 60_000);
  return now + ((end - minute + 1440) % 1440) * 60_000 - (local % 60_000);
}

/** A stored settings text, read leniently: a record another version wrote never breaks a call. */
export function parseSessionPolicy(text: string | undefined): SessionPolicy {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as SessionPolicy) : {};
  } catch {
    return {};
  }
}
