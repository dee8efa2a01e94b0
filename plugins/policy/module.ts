// The account-safety policy: budgets per action class, activity windows and warm-up (GET/PATCH
// /policy), and the freeze of a class the platform blocked. Its route guards are built per app in
// bin/compose.ts (they read the app's settings and, in tests, a clock).
import { settingRow } from '../../engine/modules.js';
import type { FeatureModule } from '../../engine/types.js';
import { freezeSettings } from './freeze.js';
import { policyPlugins, policySettings } from './index.js';

const policy = settingRow((extra) => policySettings('standard', extra));

export const policyModule: FeatureModule = {
  name: 'policy',
  plugins: policyPlugins,
  settings: [
    policy('POLICY_WARMUP_START', '0.25', "a new session's write budgets start at this fraction of the preset"),
    policy('POLICY_WARMUP_DAYS', '14', 'days over which the write budgets reach the preset (`0`: no warm-up)'),
    policy('POLICY_INTERACTIVE_SHARE', '0.2', 'the share of each budget background work leaves to interactive calls'),
    policy('POLICY_WINDOW_READS', 'allow', '`refuse` refuses reads outside the activity window too'),
    settingRow(freezeSettings)('FREEZE_BACKOFF_SECONDS', '3600', 'how long a class the platform blocked stays frozen when the block carries no hint'),
  ],
};
