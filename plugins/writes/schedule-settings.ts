// Settings of scheduled and deferred writes, and the one check of a `publish_at` time. Parsed at
// start (bin/compose.ts), so a bad value stops the start by name.
import { invalidParams } from '../../engine/service-errors.js';

export const SCHEDULE_SETTING_KEYS = ['SCHEDULE_MAX_AHEAD_DAYS', 'SCHEDULE_MAX_PENDING', 'SCHEDULE_MAX_MB', 'SCHEDULE_NATIVE', 'SCHEDULE_RECHECK_MS'];

export interface ScheduleSettings {
  /** How far ahead `publish_at` may be. */
  readonly maxAheadMs: number;
  /** Writes of one account waiting to run (scheduled or deferred). */
  readonly maxPending: number;
  /** Bytes of uploaded files kept for waiting writes, on this data folder. */
  readonly maxBytes: number;
  /** Hand `publish_at` to the library's own `schedule_at` where the route has it (aiograpi 1.12+, professional accounts). */
  readonly native: boolean;
  /**
   * The longest a waiting write sleeps in the queue before it looks at the clock again: a run's time
   * is kept in the service's clock, which may move otherwise than the queue's timers (a clock set
   * forward, a test's clock).
   */
  readonly recheckMs: number;
}

const DAY_MS = 86_400_000;

export function scheduleSettings(extra: Readonly<Record<string, string | undefined>>): ScheduleSettings {
  return {
    maxAheadMs: numberSetting(extra, 'SCHEDULE_MAX_AHEAD_DAYS', 90, 1, 3650, 'days') * DAY_MS,
    maxPending: numberSetting(extra, 'SCHEDULE_MAX_PENDING', 100, 1, 100_000, 'writes'),
    maxBytes: numberSetting(extra, 'SCHEDULE_MAX_MB', 1024, 0, 1_000_000, 'MB') * 1024 * 1024,
    native: switchSetting(extra, 'SCHEDULE_NATIVE'),
    recheckMs: numberSetting(extra, 'SCHEDULE_RECHECK_MS', 60_000, 10, 86_400_000, 'milliseconds'),
  };
}

function numberSetting(extra: Readonly<Record<string, string | undefined>>, key: string, fallback: number, min: number, max: number, unit: string): number {
  const raw = extra[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  throw new Error(`SOCIALGATE_${key} must be a whole number of ${unit} from ${min} to ${max}, got "${raw}"`);
}

function switchSetting(extra: Readonly<Record<string, string | undefined>>, key: string): boolean {
  const raw = (extra[key] ?? '').toLowerCase();
  if (['', 'false', 'off', '0', 'no'].includes(raw)) return false;
  if (['true', 'on', '1', 'yes'].includes(raw)) return true;
  throw new Error(`SOCIALGATE_${key} must be true or false, got "${extra[key]}"`);
}

/**
 * When a write sent with `publish_at` runs (epoch ms): a time with its offset (the schema checked
 * the RFC 3339 form), after now and within the horizon; otherwise a 422 naming publish_at.
 */
export function publishTime(value: string, settings: ScheduleSettings, now: number): number {
  const at = Date.parse(value);
  const problem = Number.isNaN(at)
    ? 'not an RFC 3339 time with an offset (2026-12-24T18:00:00Z)'
    : at <= now
      ? `${value} is not in the future`
      : at - now > settings.maxAheadMs
        ? `${value} is more than ${settings.maxAheadMs / DAY_MS} days ahead (SOCIALGATE_SCHEDULE_MAX_AHEAD_DAYS)`
        : undefined;
  if (problem) throw invalidParams([{ param: 'publish_at', problem }]);
  return at;
}
