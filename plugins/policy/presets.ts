// The presets' numbers and the policy's settings. The numbers follow published guidance on what the
// platform tolerates (sources in the README's "Account safety" section): likes about 20 an hour and
// 300 to 500 a day, follows and unfollows 20 an hour and 200 a day, comments 12 to 14 an hour and
// about 200 a day, direct messages 2 a minute, 20 an hour and 80 a day (instagram_dm_mcp #12); new
// accounts lower (one like in 30 s), ramping up over their first weeks. `safe` sits under every
// figure, `standard` at the lower end of the published ranges, `fast` at their upper end.
import { ACTION_CLASSES, type ActionClass } from '../../engine/types.js';

export const WINDOWS = ['minute', 'hour', 'day'] as const;
export type PolicyWindow = (typeof WINDOWS)[number];
export const WINDOW_MS: Readonly<Record<PolicyWindow, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** A limit per window; undefined: none in that window. */
export type Limits = Partial<Record<PolicyWindow, number>>;
export type ClassLimits = Readonly<Record<ActionClass, Limits>>;

export const PRESETS = ['off', 'safe', 'standard', 'fast'] as const;
export type Preset = (typeof PRESETS)[number];

const row = (minute: number, hour: number, day: number): Limits => ({ minute, hour, day });

const TABLES: Readonly<Record<Exclude<Preset, 'off'>, ClassLimits>> = {
  safe: {
    read: row(30, 600, 6000),
    like: row(2, 15, 150),
    comment: row(1, 6, 60),
    follow: row(1, 10, 100),
    direct: row(1, 10, 40),
    post: row(1, 3, 10),
    profile: row(1, 3, 10),
    other: row(3, 30, 300),
  },
  standard: {
    read: row(60, 1200, 12000),
    like: row(3, 20, 300),
    comment: row(2, 12, 150),
    follow: row(2, 20, 200),
    direct: row(2, 20, 80),
    post: row(1, 5, 25),
    profile: row(1, 5, 20),
    other: row(5, 60, 600),
  },
  fast: {
    read: row(120, 3000, 30000),
    like: row(5, 40, 500),
    comment: row(3, 14, 200),
    follow: row(3, 30, 300),
    direct: row(3, 40, 120),
    post: row(2, 10, 50),
    profile: row(2, 10, 40),
    other: row(10, 120, 1200),
  },
};

const NONE: ClassLimits = Object.fromEntries(ACTION_CLASSES.map((one) => [one, {}])) as unknown as ClassLimits;

export function presetLimits(preset: Preset): ClassLimits {
  return preset === 'off' ? NONE : TABLES[preset];
}

export interface PolicySettings {
  /** The service's preset (SOCIALGATE_POLICY, `--policy`). */
  readonly preset: Preset;
  /** A new session's write budgets start at this fraction of the preset... */
  readonly warmupStart: number;
  /** ...and reach the preset after this many days (0: no warm-up). */
  readonly warmupDays: number;
  /** The share of each budget background work (jobs, pools, watchers) leaves to interactive calls. */
  readonly interactiveShare: number;
  /** Whether reads are refused outside a session's activity window too. */
  readonly windowReads: 'allow' | 'refuse';
}

export const POLICY_SETTING_KEYS = ['POLICY_WARMUP_START', 'POLICY_WARMUP_DAYS', 'POLICY_INTERACTIVE_SHARE', 'POLICY_WINDOW_READS'];

export function policySettings(preset: string, extra: Readonly<Record<string, string | undefined>>): PolicySettings {
  if (!(PRESETS as readonly string[]).includes(preset)) throw new Error(`SOCIALGATE_POLICY must be one of ${PRESETS.join(', ')}, got "${preset}"`);
  const windowReads = extra.POLICY_WINDOW_READS || 'allow';
  if (windowReads !== 'allow' && windowReads !== 'refuse') throw new Error(`SOCIALGATE_POLICY_WINDOW_READS must be allow or refuse, got "${windowReads}"`);
  return {
    preset: preset as Preset,
    warmupStart: fraction(extra, 'POLICY_WARMUP_START', 0.25, 0.01, 1),
    warmupDays: fraction(extra, 'POLICY_WARMUP_DAYS', 14, 0, 365),
    interactiveShare: fraction(extra, 'POLICY_INTERACTIVE_SHARE', 0.2, 0, 0.9),
    windowReads,
  };
}

function fraction(extra: Readonly<Record<string, string | undefined>>, key: string, fallback: number, min: number, max: number): number {
  const raw = extra[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`SOCIALGATE_${key} must be a number from ${min} to ${max}, got "${raw}"`);
  return value;
}
