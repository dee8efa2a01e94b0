// The events module (bin/compose.ts lists it) and the routes of manifest/events.yaml,
// webhooks.yaml and sandbox.yaml. The module puts the outbox behind the background layer's events
// port (jobs emit through it too), defines the fan-out, delivery and watcher work kinds, turns
// every session state change into session.state.changed, and adds the metrics.
import { ownerOf } from '../../engine/owner.js';
import { serviceError } from './errors.js';
import { ownedFilter } from './webhook-filter.js';
import { errorCode } from '../../engine/log.js';
import type { EventTypeRow, ModuleStart, Plugin, PluginInput, Services, SessionStateChange, WorkEvent, WorkItem } from '../../engine/types.js';
import { eventId, sessionRef } from '../../adapters/events/ids.js';
import { FANOUT, Outbox } from '../../adapters/events/outbox.js';
import { eventsSettingsFrom, type EventsSettings } from '../../adapters/events/settings.js';
import { eventStream } from '../../adapters/events/sse.js';
import { DELIVER, Webhooks } from '../../adapters/events/webhooks.js';
import { transferSettingsFor } from '../../adapters/transfer/settings.js';
import { Realtime } from './realtime.js';
import { Watchers } from './watch.js';

export interface EventsParts {
  readonly outbox: Outbox;
  readonly webhooks: Webhooks;
  readonly watchers: Watchers;
  readonly settings: EventsSettings;
}

const LATENCY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** The module's start: its parts for one app, or undefined on an app without the background layer. */
export function startEvents({ services }: ModuleStart): EventsParts | undefined {
  const work = services.work;
  if (!work) return undefined;
  const settings = eventsSettingsFrom(services.config.extra);
  const metrics = eventMetrics(services);
  const outbox = new Outbox(work, services.log, { retentionMs: settings.retentionMs, retainCount: settings.retainCount, counted: metrics.emitted });
  const webhooks = new Webhooks(work, {
    backoffMs: settings.webhookBackoffMs,
    timeoutMs: settings.webhookTimeoutMs,
    allow: transferSettingsFor(services.config.extra).fetch.allow,
    observed: (outcome, seconds) => {
      metrics.delivered(outcome, seconds);
      outbox.notice('webhook.delivery', { outcome });
    },
  });
  const watchers = new Watchers({
    work,
    sessions: services.sessions,
    routes: services.routes,
    outbox,
    settings,
    log: services.log,
    checked: metrics.checked,
    truncated: metrics.truncated,
  });
  work.events = outbox;
  work.queue.define<WorkEvent>(FANOUT, (item: WorkItem<WorkEvent>) => fanOut(outbox, webhooks, item.data), { concurrency: 8 });
  work.queue.define(DELIVER, webhooks.deliver as never, { concurrency: 32 });
  watchers.install();
  requeueEvery(watchers, services);
  void linkRealtime(services, watchers, metrics.realtime);
  services.sessions.subscribe((_id, change) => change && onStateChange(outbox, watchers, change));
  watchGauges(services, watchers);
  return { outbox, webhooks, watchers, settings };
}

/** Realtime streams for watched sessions when the upstream has them (asked once; a sidecar may have to start). */
async function linkRealtime(services: Services, watchers: Watchers, counted: (what: string) => void): Promise<void> {
  const capable = await services.upstream.realtimeCapable?.().catch(() => false);
  if (!capable) return;
  const realtime = new Realtime({
    sessions: services.sessions,
    watchers,
    log: services.log,
    counted,
    idleMs: (intervalMs) => 3 * intervalMs + 10_000,
  });
  watchers.links = realtime;
  services.app.gauge('socialgate_realtime_streams', 'Realtime streams this instance holds for watched sessions', [], async () => [
    { labels: {}, value: realtime.size },
  ]);
  services.log.info('realtime streams are used for watched sessions', { upstream: services.upstream.name });
}

/** How often an instance looks for watchers whose work item was lost (see Watchers.requeueOverdue). */
const REQUEUE_EVERY_MS = 30_000;

function requeueEvery(watchers: Watchers, services: Services): void {
  let failures = 0;
  const timer = setInterval(() => {
    watchers.requeueOverdue().then(
      (queued) => {
        failures = 0;
        if (queued) services.log.warn('watchers whose work item was lost are queued again', { queued });
      },
      // the store being away is reported by /ready and the failing calls: one line per outage here
      (error: unknown) => failures++ === 0 && services.log.warn('looking for lost watchers failed', { error: errorCode(error) }),
    );
  }, REQUEUE_EVERY_MS);
  timer.unref();
}

/** Kept in the log (if the emitter died before) and queued to every matching endpoint. */
async function fanOut(outbox: Outbox, webhooks: Webhooks, event: WorkEvent): Promise<void> {
  await outbox.keep(event);
  await webhooks.fanOut(event);
}

/** Emitted for every session, watched or not. */
export const SESSION_STATE_CHANGED: EventTypeRow = {
  type: 'session.state.changed',
  describe:
    'A session became active, challenged, throttled (until when) or logged out, with the reason, or ' +
    'one of its action classes froze (action, frozen_until) after the platform blocked it. Emitted for ' +
    'every session, watched or not.',
};

/** session.state.changed for every session, watched or not; a logged-out session's watcher ends with it. */
function onStateChange(outbox: Outbox, watchers: Watchers, change: SessionStateChange): void {
  const ref = sessionRef(change.record.id);
  const at = Date.now();
  outbox.emitQuietly({
    id: eventId(SESSION_STATE_CHANGED.type, ref, change.from, change.to, change.throttledUntil ?? at, ...change.detailId),
    type: SESSION_STATE_CHANGED.type,
    session: ref,
    timestamp: at,
    data: {
      account: change.record.account,
      ref,
      from: change.from,
      to: change.to,
      reason: change.reason,
      throttled_until: change.throttledUntil ? new Date(change.throttledUntil).toISOString() : null,
      // what the modules' record fields say moved (the policy's frozen class: action, frozen_until)
      ...change.detail,
    },
  });
  if (change.to === 'logged_out') void watchers.forget(ref).catch(() => undefined);
}

function eventMetrics(services: Services) {
  const events = services.app.counter('socialgate_events_total', 'Events emitted, by type (each counted once, by the instance that logged it first)', ['type']);
  const deliveries = services.app.counter(
    'socialgate_webhook_deliveries_total',
    'Webhook delivery attempts by outcome (delivered, retry, deferred, disabled, failed)',
    ['outcome'],
  );
  const latency = services.app.histogram('socialgate_webhook_delivery_seconds', 'Webhook delivery attempt latency by outcome', ['outcome'], LATENCY_BUCKETS);
  const checks = services.app.counter('socialgate_watch_checks_total', 'Watcher checks by outcome (ok, paused, error, store_unavailable)', ['outcome']);
  const cut = services.app.counter(
    'socialgate_watch_truncated_total',
    'Watcher checks whose read back to the watermark a bound (WATCH_PAGES, WATCH_THREAD_MESSAGES) cut short, by kind',
    ['kind'],
  );
  const streams = services.app.counter('socialgate_realtime_total', 'Realtime stream happenings: connect, lost, ring', ['what']);
  return {
    emitted: (type: string) => events({ type }),
    delivered: (outcome: string, seconds: number) => {
      deliveries({ outcome });
      latency({ outcome }, seconds);
    },
    checked: (outcome: string) => checks({ outcome }),
    truncated: (kind: string) => cut({ kind }),
    realtime: (what: string) => streams({ what }),
  };
}

/** Read at scrape time from the shared store: every instance reports the same census. */
function watchGauges(services: Services, watchers: Watchers): void {
  services.app.gauge('socialgate_watched_sessions', 'Watched sessions by state (running, paused)', ['state'], async () => {
    const all = await watchers.all();
    const paused = all.filter((w) => w.paused).length;
    return [
      { labels: { state: 'running' }, value: all.length - paused },
      { labels: { state: 'paused' }, value: paused },
    ];
  });
  services.app.gauge(
    'socialgate_watch_lag_seconds',
    'How late watcher checks ran against their schedule (max and mean of the last checks)',
    ['stat'],
    async () => {
      const lags = (await watchers.all()).map((w) => (w.lag_ms ?? 0) / 1000);
      const max = lags.length ? Math.max(...lags) : 0;
      const mean = lags.length ? lags.reduce((a, b) => a + b, 0) / lags.length : 0;
      return [
        { labels: { stat: 'max' }, value: max },
        { labels: { stat: 'mean' }, value: mean },
      ];
    },
  );
}

/** The app's events parts, or 503 when the instance runs no background layer. */
function parts(found: EventsParts | undefined): EventsParts {
  if (!found) throw serviceError('EventsUnavailable', 'Events are not available on this instance (no background layer)');
  return found;
}

type Input = PluginInput<EventsParts | undefined>;
const plugin = (handle: (input: Input) => Promise<unknown>, uses: readonly string[] = []): Plugin<EventsParts | undefined> => ({ uses, handle });
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String).filter(Boolean) : typeof value === 'string' && value ? [value] : []);
const session = (input: Input) =>
  input.session ??
  (() => {
    throw serviceError('SessionRequired', 'This route acts for a session: send X-Session-ID');
  })();

/** Where a new listener starts: the query parameter, else the SSE reconnect header, else the log's end. */
function resumePoint(input: Input): number | undefined {
  const given = input.input.last_event_id;
  if (given !== undefined && given !== '') {
    if (!/^\d{1,15}$/.test(String(given)))
      throw serviceError('ValidationError', 'last_event_id: the id of an event of this stream (a whole number)', {
        errors: [{ param: 'last_event_id', problem: 'a whole number' }],
      });
    return Number(given);
  }
  const header = input.header?.('last-event-id').trim();
  if (!header) return undefined;
  if (!/^\d{1,15}$/.test(header))
    throw serviceError('ValidationError', 'Last-Event-ID: the id of an event of this stream (a whole number)', {
      errors: [{ param: 'Last-Event-ID', problem: 'a whole number' }],
    });
  return Number(header);
}

export const eventPlugins: Readonly<Record<string, Plugin<EventsParts | undefined>>> = Object.freeze({
  'events.watch.start': plugin(async (input) =>
    parts(input.parts).watchers.start(session(input), {
      kinds: strings(input.input.kinds),
      interval_seconds: input.input.interval_seconds as number | undefined,
    }),
  ),
  'events.watch.status': plugin(async (input) => parts(input.parts).watchers.status(session(input))),
  'events.watch.stop': plugin(async (input) => parts(input.parts).watchers.stop(session(input))),

  'events.stream': plugin(async (input) => {
    const { outbox, settings } = parts(input.parts);
    return eventStream(outbox, sessionRef(session(input).id), resumePoint(input), input.signal, {
      keepAliveMs: settings.keepAliveMs,
      pollMs: settings.streamPollMs,
      types: strings(input.input.types),
    });
  }),

  'webhooks.create': plugin(async (input) =>
    parts(input.parts).webhooks.create({
      url: String(input.input.url),
      kinds: strings(input.input.kinds),
      description: String(input.input.description ?? ''),
      // A session id (32 characters) is turned into its ref, never kept; each must be the creator's own.
      sessions: await ownedFilter(strings(input.input.sessions), input),
      owner: ownerOf(input.caller),
    }),
  ),
  'webhooks.list': plugin(async (input) => parts(input.parts).webhooks.list(input.caller)),
  'webhooks.delete': plugin(async (input) => {
    await parts(input.parts).webhooks.remove(String(input.input.id), input.caller);
    return true;
  }),
  'webhooks.rotate': plugin(async (input) => parts(input.parts).webhooks.rotate(String(input.input.id), input.caller)),
  'webhooks.enable': plugin(async (input) => parts(input.parts).webhooks.enable(String(input.input.id), input.caller)),
  'webhooks.deliveries': plugin(async (input) => {
    const rows = await parts(input.parts).webhooks.attempts(
      String(input.input.id),
      Number(input.input.after ?? 0),
      Number(input.input.limit ?? 100),
      input.caller,
    );
    return rows.map(({ seq, attempt }) => ({ seq, ...attempt, session: attempt.session ?? null, at: new Date(attempt.at).toISOString() }));
  }),
  'webhooks.replay': plugin(async (input) => {
    const { webhooks, outbox } = parts(input.parts);
    const id = String(input.input.id);
    const eventId = String(input.input.event_id);
    const sent = (await webhooks.attempts(id, 0, 100_000, input.caller)).find((row) => row.attempt.event_id === eventId);
    const event = sent ? await outbox.find(sent.attempt.session, eventId) : undefined;
    if (!event)
      throw serviceError('EventNotFound', `Event ${eventId} is not in this endpoint's delivery log or no longer retained`, {
        errors: [{ param: 'event_id', problem: 'not found' }],
      });
    await webhooks.replay(id, event);
    return true;
  }),
});
