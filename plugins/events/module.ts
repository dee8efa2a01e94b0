// The events module (watchers, the outbox, GET /events, the sandbox's live happenings) and the
// webhooks module (endpoints and their deliveries), which share the outbox the events module keeps.
import { eventsSettingsFrom } from '../../adapters/events/settings.js';
import { WEBHOOK_ERRORS } from '../../adapters/events/errors.js';
import { WATCH_EVENT_TYPES } from '../../adapters/events/sources.js';
import { settingRow } from '../../engine/modules.js';
import type { FeatureModule, Plugin } from '../../engine/types.js';
import { EVENT_ERRORS } from './errors.js';
import { eventPlugins, type EventsParts, startEvents, SESSION_STATE_CHANGED } from './index.js';
import { sandboxPlugins } from './sandbox.js';
import { watchView } from './session-view.js';

const pick = (prefix: string, webhooks: boolean): Record<string, Plugin<EventsParts | undefined>> =>
  Object.fromEntries(Object.entries(eventPlugins).filter(([name]) => name.startsWith(prefix) === webhooks));

const row = settingRow(eventsSettingsFrom);

export const eventsModule: FeatureModule<EventsParts | undefined> = {
  name: 'events',
  plugins: { ...pick('webhooks.', false), ...sandboxPlugins },
  errors: EVENT_ERRORS,
  start: startEvents,
  sessionViews: [watchView],
  eventTypes: [...WATCH_EVENT_TYPES, SESSION_STATE_CHANGED],
  settings: [
    row('WATCH_INTERVAL_SECONDS', '60', "default interval between a watcher's checks"),
    row('WATCH_FLOOR_SECONDS', '30', 'the shortest interval a watch may ask for'),
    row('WATCH_PAGES', '10', 'pages of threads (20 a page) a check reads back to its watermark, per inbox'),
    row('WATCH_THREAD_MESSAGES', '100', 'messages of one changed thread a check reads back to its watermark (10 to 200)'),
    row('EVENTS_RETENTION_HOURS', '72', 'how long SSE can resume from the log'),
    row('EVENTS_RETAIN', '10000', 'most events kept per session log'),
    row('EVENTS_KEEPALIVE_SECONDS', '15', 'keep-alive comments on idle SSE streams'),
    row('EVENTS_POLL_MS', '1000', 'how often a stream looks for events another instance wrote'),
  ],
};

/** The webhooks' routes work on the events module's parts (the endpoints and the outbox they deliver from). */
export const webhooksModule: FeatureModule<EventsParts | undefined> = {
  name: 'webhooks',
  needs: [eventsModule],
  start: (context) => context.partsOf(eventsModule),
  plugins: pick('webhooks.', true),
  errors: WEBHOOK_ERRORS,
  settings: [
    row('WEBHOOK_BACKOFF_MS', 'the schedule above', 'retry waits, comma-separated milliseconds'),
    row('WEBHOOK_TIMEOUT_MS', '15000', "one delivery attempt's timeout"),
  ],
};
