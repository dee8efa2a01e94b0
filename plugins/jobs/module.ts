// Jobs: every page of a paged route collected in the background (manifest/jobs.yaml).
import { settingRow } from '../../engine/modules.js';
import type { FeatureModule } from '../../engine/types.js';
import { JOB_ERRORS } from './errors.js';
import { type JobsParts, jobPlugins, jobSettings, startJobs } from './index.js';
import { policyModule } from '../policy/module.js';
import { JOB_EVENT_TYPES } from './service.js';

const row = settingRow(jobSettings);

export const jobsModule: FeatureModule<JobsParts> = {
  name: 'jobs',
  // pools choose members with budget left: the account-safety policy's look at its budgets
  needs: [policyModule],
  start: (context) => startJobs(context.services, context.partsOf(policyModule).policy),
  plugins: jobPlugins,
  errors: JOB_ERRORS,
  eventTypes: JOB_EVENT_TYPES,
  settings: [
    row('JOB_INTERVAL_MS', '2000', 'jobs: milliseconds between two pages of one session (±25 % jitter); `0` turns pacing off'),
    row('JOB_RECHECK_MS', '60000', 'jobs: how often a job paused by a challenge or a dead session looks again'),
  ],
};
