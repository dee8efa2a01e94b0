// The account-safety policy: budgets per action class, activity windows and warm-up (GET/PATCH
// /policy), and the freeze of a class the platform blocked. Its start makes one app's Policy (on the
// app's clock) and Freezer; its guards, routes and console panels work on them.
import { settingRow } from '../../engine/modules.js';
import type { FeatureModule, SessionView } from '../../engine/types.js';
import { Freezer, freezeGuard, freezeSettings, frozenClasses } from './freeze.js';
import { FROZEN_FIELD } from './frozen.js';
import { policyGuard } from './guard.js';
import { type PolicyParts, policyPlugins, policySettings } from './index.js';
import { Policy } from './policy.js';
import { budgetSummaries } from './summary.js';

/**
 * Where the policy's guards sit among the product's (a lower order is further out): outside them the
 * exactly-once writes and the deferral and scheduling of writes (plugins/writes/module.ts), since a
 * replay, a deferred or a scheduled write spends no budget now; the freeze of a blocked class before
 * the budgets.
 */
export const FREEZE_ORDER = 40;
export const POLICY_ORDER = 50;

/** The console's panels of a session: the budgets used today and the window, the classes frozen now. */
const views: readonly SessionView<PolicyParts>[] = [
  { name: 'budgets', empty: null, read: (parts, records) => budgetSummaries(parts.policy, records) },
  {
    name: 'frozen_classes',
    empty: [],
    read: async (_parts, records, now) => new Map(records.map((record) => [record.id, frozenClasses(record, now).map((one) => one.action)])),
  },
];

const policy = settingRow((extra) => policySettings('standard', extra));

export const policyModule: FeatureModule<PolicyParts> = {
  name: 'policy',
  start: ({ services, clock }) => {
    const policy = new Policy(services.config, clock, services);
    policy.warm();
    return { policy, freezer: new Freezer(services, freezeSettings(services.config.extra)) };
  },
  stop: (parts) => parts.policy.close(),
  guards: (_config, parts) => [
    { order: FREEZE_ORDER, guard: freezeGuard(parts.freezer) },
    { order: POLICY_ORDER, guard: policyGuard(parts.policy) },
  ],
  sessionViews: views,
  recordFields: [FROZEN_FIELD],
  plugins: policyPlugins,
  settings: [
    policy('POLICY_WARMUP_START', '0.25', "a new session's write budgets start at this fraction of the preset"),
    policy('POLICY_WARMUP_DAYS', '14', 'days over which the write budgets reach the preset (`0`: no warm-up)'),
    policy('POLICY_INTERACTIVE_SHARE', '0.2', 'the share of each budget background work leaves to interactive calls'),
    policy('POLICY_WINDOW_READS', 'allow', '`refuse` refuses reads outside the activity window too'),
    settingRow(freezeSettings)('FREEZE_BACKOFF_SECONDS', '3600', 'how long a class the platform blocked stays frozen when the block carries no hint'),
  ],
};
