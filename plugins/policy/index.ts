// GET and PATCH /policy (manifest/policy.yaml): a session's budgets as they stand and its own
// choices (preset, per-class overrides, activity window, warm-up). The guard itself is guard.ts.
import { sessionRef } from '../../engine/session-record.js';
import { invalidParams, serviceError } from '../../engine/service-errors.js';
import { ACTION_CLASSES, type ActionClass, type InputBag, type Plugin, type PluginInput, type SessionRecord } from '../../engine/types.js';
import { counterKey, windowReset } from './entry.js';
import type { Policy } from './policy.js';
import type { Freezer } from './freeze.js';
import { presetLimits, WINDOWS, type Limits, type Preset } from './presets.js';
import { effectiveLimits, presetOf, untilWindowOpens, warmupOf, type SessionPolicy } from './rules.js';

export { policyGuard } from './guard.js';
export { POLICY_SETTING_KEYS, policySettings } from './presets.js';

/** One app's policy and freezes (the module's start makes them; the engine hands them to its routes and guards). */
export interface PolicyParts {
  readonly policy: Policy;
  readonly freezer: Freezer;
}

const plugin = (handle: (input: PluginInput<PolicyParts>) => Promise<unknown>): Plugin<PolicyParts> => ({ uses: [], handle });

function policyFor(input: PluginInput<PolicyParts>): { policy: Policy; record: SessionRecord } {
  const policy = input.parts?.policy;
  if (!policy || !input.session) throw serviceError('SessionRequired', 'GET and PATCH /policy act for one session');
  return { policy, record: input.session };
}

/**
 * Classes the platform froze for this session and until when (epoch ms): h-freeze's record field
 * `frozen` (class → until), read here when present so that GET /policy shows it.
 */
export function frozenClasses(record: SessionRecord, now: number): Record<string, string> {
  const frozen = (record as { readonly frozen?: unknown }).frozen;
  if (!frozen || typeof frozen !== 'object') return {};
  const shown: Record<string, string> = {};
  for (const [cls, until] of Object.entries(frozen as Record<string, unknown>))
    if (typeof until === 'number' && until > now) shown[cls] = new Date(until).toISOString();
  return shown;
}

/** What GET /policy answers (and PATCH, after the change). */
export async function policyView(policy: Policy, record: SessionRecord): Promise<Record<string, unknown>> {
  const now = policy.now();
  const ref = sessionRef(record.id);
  const own = await policy.sessionPolicy(ref);
  const warmup = warmupOf(record, own, policy.settings, now);
  const keys = ACTION_CLASSES.flatMap((cls) => WINDOWS.map((window) => counterKey(ref, cls, window, now)));
  const totals = await (await policy.store()).read(keys);
  const classes = Object.fromEntries(
    ACTION_CLASSES.map((cls, c) => [
      cls,
      {
        preset: presetLimits(presetOf(own, policy.settings))[cls],
        limits: effectiveLimits(cls, own, policy.settings, warmup),
        override: own.limits?.[cls] ?? null,
        used: Object.fromEntries(WINDOWS.map((window, w) => [window, totals[c * WINDOWS.length + w]])),
        resets: Object.fromEntries(WINDOWS.map((window) => [window, new Date(windowReset(window, now)).toISOString()])),
      },
    ]),
  );
  const wait = untilWindowOpens(record, own, now);
  return {
    preset: presetOf(own, policy.settings),
    service_preset: policy.settings.preset,
    classes,
    window: own.window
      ? { ...own.window, timezone_offset: record.timezone ?? 0, open: wait === 0, opens_at: wait === 0 ? null : new Date(now + wait).toISOString() }
      : null,
    window_reads: policy.settings.windowReads,
    warmup: { start: warmup.start, days: warmup.days, day: warmup.day, fraction: Math.round(warmup.fraction * 1000) / 1000, complete: warmup.fraction >= 1 },
    interactive_share: policy.settings.interactiveShare,
    frozen: frozenClasses(record, now),
  };
}

/** The session's choices with the request's changes; an empty window clears it, a null class override clears that class's. */
export function patched(own: SessionPolicy, input: InputBag): SessionPolicy {
  const next: { -readonly [K in keyof SessionPolicy]: SessionPolicy[K] } = { ...own };
  if (typeof input.preset === 'string') next.preset = input.preset as Preset;
  if (input.limits && typeof input.limits === 'object')
    next.limits = mergedLimits(own.limits ?? {}, input.limits as Record<string, Record<string, number | null> | null>);
  const start = input.window_start,
    end = input.window_end;
  if (start !== undefined || end !== undefined) {
    if (start === '' && (end === '' || end === undefined)) next.window = undefined;
    else if (typeof start !== 'string' || typeof end !== 'string' || !start || !end) {
      throw invalidParams([
        { param: start ? 'window_end' : 'window_start', problem: 'an activity window needs both window_start and window_end (empty window_start clears it)' },
      ]);
    } else next.window = { start, end };
  }
  if (input.warmup_days !== undefined || input.warmup_start !== undefined) {
    next.warmup = {
      ...own.warmup,
      ...(input.warmup_days !== undefined ? { days: Number(input.warmup_days) } : {}),
      ...(input.warmup_start !== undefined ? { start: Number(input.warmup_start) } : {}),
    };
  }
  return next;
}

function mergedLimits(
  own: Partial<Record<ActionClass, Limits>>,
  changes: Record<string, Record<string, number | null> | null>,
): Partial<Record<ActionClass, Limits>> {
  const merged: Partial<Record<ActionClass, Limits>> = { ...own };
  for (const [cls, windows] of Object.entries(changes) as [ActionClass, Record<string, number | null> | null][]) {
    if (windows === null) {
      delete merged[cls];
      continue;
    }
    const limits: Limits = { ...merged[cls] };
    for (const window of WINDOWS) {
      if (windows[window] === null) delete limits[window];
      else if (windows[window] !== undefined) limits[window] = windows[window]!;
    }
    merged[cls] = limits;
  }
  return merged;
}

export const policyPlugins: Readonly<Record<string, Plugin<PolicyParts>>> = Object.freeze({
  'policy.view': plugin(async (input) => {
    const { policy, record } = policyFor(input);
    return policyView(policy, record);
  }),
  'policy.change': plugin(async (input) => {
    const { policy, record } = policyFor(input);
    const ref = sessionRef(record.id);
    await policy.saveSessionPolicy(ref, patched(await policy.sessionPolicy(ref), input.input));
    return policyView(policy, record);
  }),
});
