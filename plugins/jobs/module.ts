// Jobs: every page of a paged route collected in the background (manifest/jobs.yaml).
import type { FeatureModule } from '../../engine/types.js';
import { JOB_ERRORS } from './errors.js';
import { installJobs, jobPlugins, jobSettings } from './index.js';
import { JOB_EVENT_TYPES } from './service.js';

const millis =
  (name: string) =>
  (raw: string): unknown =>
    jobSettings({ [name]: raw });

export const jobsModule: FeatureModule = {
  name: 'jobs',
  plugins: jobPlugins,
  errors: JOB_ERRORS,
  background: installJobs,
  eventTypes: JOB_EVENT_TYPES,
  settings: [
    {
      name: 'JOB_INTERVAL_MS',
      default: '2000',
      describe: 'jobs: milliseconds between two pages of one session (±25 % jitter); `0` turns pacing off',
      parse: millis('JOB_INTERVAL_MS'),
    },
    {
      name: 'JOB_RECHECK_MS',
      default: '60000',
      describe: 'jobs: how often a job paused by a challenge or a dead session looks again',
      parse: millis('JOB_RECHECK_MS'),
    },
  ],
};
