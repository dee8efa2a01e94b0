// Events settings, read once from config.extra (SOCIALGATE_* without the prefix). A bad value stops
// the boot by name, like the transfer settings.
export interface EventsSettings {
  /** How long the per-session log keeps events for SSE resume (Last-Event-ID). */
  readonly retentionMs: number;
  /** Most events kept per session log; older ones are trimmed. */
  readonly retainCount: number;
  /** Comment lines on an idle SSE stream, so proxies keep it open and a dead peer is noticed. */
  readonly keepAliveMs: number;
  /** How often an SSE stream looks for events another instance wrote (its own instance wakes it at once). */
  readonly streamPollMs: number;
  /** The Standard Webhooks retry schedule: waits after the 1st, 2nd... failed attempt. */
  readonly webhookBackoffMs: readonly number[];
  readonly webhookTimeoutMs: number;
  /** Watch interval floor: tighter polling gets accounts flagged (the upstream's maintainers warn). */
  readonly watchFloorMs: number;
  readonly watchDefaultMs: number;
  /** Pages of threads (20 a page) a check reads back to its watermark, per box. */
  readonly watchPages: number;
  /** Messages of one changed thread a check reads back to its watermark. */
  readonly watchThreadMessages: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: the schedule the Standard Webhooks spec suggests. */
export const STANDARD_BACKOFF_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;

export function eventsSettingsFrom(extra: Readonly<Record<string, string | undefined>>): EventsSettings {
  const floor = number(extra, 'WATCH_FLOOR_SECONDS', 30, 0.05) * SECOND;
  return {
    retentionMs: number(extra, 'EVENTS_RETENTION_HOURS', 72, 0.001) * HOUR,
    retainCount: Math.round(number(extra, 'EVENTS_RETAIN', 10_000, 10)),
    keepAliveMs: number(extra, 'EVENTS_KEEPALIVE_SECONDS', 15, 0.05) * SECOND,
    streamPollMs: number(extra, 'EVENTS_POLL_MS', 1000, 10),
    webhookBackoffMs: list(extra, 'WEBHOOK_BACKOFF_MS') ?? STANDARD_BACKOFF_MS,
    webhookTimeoutMs: number(extra, 'WEBHOOK_TIMEOUT_MS', 15_000, 1),
    watchFloorMs: floor,
    watchDefaultMs: Math.max(floor, number(extra, 'WATCH_INTERVAL_SECONDS', 60, 0.05) * SECOND),
    watchPages: Math.round(number(extra, 'WATCH_PAGES', 10, 1)),
    watchThreadMessages: Math.round(number(extra, 'WATCH_THREAD_MESSAGES', 100, 10, 200)), // GET /direct/messages answers at most 200
  };
}

function number(extra: Readonly<Record<string, string | undefined>>, key: string, fallback: number, min: number, max = Infinity): number {
  const raw = extra[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`SOCIALGATE_${key}: expected a number from ${min}${max < Infinity ? ` to ${max}` : ' up'}, got "${raw}"`);
  return value;
}

function list(extra: Readonly<Record<string, string | undefined>>, key: string): number[] | undefined {
  const raw = extra[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (!values.length || values.some((value) => !Number.isInteger(value) || value < 0))
    throw new Error(`SOCIALGATE_${key}: expected comma-separated milliseconds, got "${raw}"`);
  return values;
}
