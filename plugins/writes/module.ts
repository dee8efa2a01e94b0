// Exactly-once writes: idempotency keys with lost answers read back, scheduled writes (publish_at)
// and deferred ones (Prefer: respond-async), each outcome an event. Its start makes one app's
// scheduled writes; its guards (./index.ts writeGuards) read the app's settings and work on them.
import { settingRow } from '../../engine/modules.js';
import type { FeatureModule } from '../../engine/types.js';
import { idempotencySettings } from './idempotency-settings.js';
import { scheduleSettings, startWrites, type WritesParts, writePlugins } from './schedule.js';
import { writeGuards } from './index.js';

const keys = settingRow(idempotencySettings);
const schedule = settingRow(scheduleSettings);

export const writesModule: FeatureModule<WritesParts> = {
  name: 'writes',
  plugins: writePlugins,
  start: ({ services, clock }) => startWrites(services, clock),
  guards: writeGuards,
  eventTypes: [
    { type: 'write.completed', describe: 'A scheduled or deferred write ran: its route, idempotency key and the answer.' },
    { type: 'write.failed', describe: 'A scheduled or deferred write failed (or its outcome is unknown): its route, idempotency key and the error.' },
  ],
  settings: [
    keys('IDEMPOTENCY_TTL_HOURS', '24', 'how long an Idempotency-Key and its answer are kept'),
    keys('IDEMPOTENCY_LEASE_MS', '15000', "how long a keyed request's claim outlives its owner"),
    schedule('SCHEDULE_MAX_AHEAD_DAYS', '90', 'how far ahead publish_at may be'),
    schedule('SCHEDULE_MAX_PENDING', '100', 'scheduled and deferred writes of one account waiting to run'),
    schedule('SCHEDULE_MAX_MB', '1024', 'bytes of uploaded files kept for waiting writes'),
    schedule('SCHEDULE_RECHECK_MS', '60000', 'the longest a waiting write sleeps before it looks at the clock again'),
    schedule('SCHEDULE_NATIVE', 'false', "`true`: publish_at goes to the library's own schedule_at where it has one"),
  ],
};
