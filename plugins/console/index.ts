// The operator console's routes (manifest/console.yaml, and the page and its key in system.yaml).
// Sessions are named by ref; every action goes through the session service, so the cache, the
// governor and the store see it as they see a request's.
import type { Plugin, PluginInput } from '../../engine/types.js';
import { reloginSession } from '../auth/relogin.js';
import { consoleEvents } from './events.js';
import { healthOf } from './health.js';
import { addToPool, allJobs, removeFromPool, startJob } from './jobs.js';
import { closeConsole, consolePage, openConsole } from './page.js';
import { upgradeAppProfile } from './upgrade.js';
import { listSessions, oneView, recordOf } from './sessions.js';
import { serviceError } from '../events/errors.js';
import type { ConsoleParts } from './parts.js';

type Input = PluginInput<ConsoleParts>;
const plugin = (handle: (input: Input) => unknown, uses: readonly string[] = []): Plugin<ConsoleParts> => ({ uses, handle: async (input) => handle(input) });

export const consolePlugins: Readonly<Record<string, Plugin<ConsoleParts>>> = Object.freeze({
  'system.console': plugin(() => consolePage()),
  'system.console_key': plugin(openConsole),
  'system.console_logout': plugin(closeConsole),
  'console.sessions': plugin(({ services, parts }) => listSessions(services, parts)),
  'console.audit': plugin(async ({ input, services }) => ({
    entries: await services.audit.recent({ limit: input.limit as number, session: input.ref as string | undefined, tool: input.tool as string | undefined }),
  })),
  'console.revoke': plugin(async ({ input, services }) => {
    const record = await recordOf(String(input.ref), services);
    services.usage.forget(record.id);
    return services.sessions.revoke(record.id);
  }),
  'console.relogin': plugin(
    async ({ input, services, parts }) => {
      const record = await recordOf(String(input.ref), services);
      return oneView(await reloginSession(record, services.sessions.client(record), services), services, parts);
    },
    ['relogin', 'get_settings'],
  ),
  'console.upgrade_profile': plugin(
    async ({ input, services, parts }) => oneView(await upgradeAppProfile(await recordOf(String(input.ref), services), services), services, parts),
    ['get_settings'],
  ),
  'console.label': plugin(async ({ input, services, parts }) => {
    const record = await recordOf(String(input.ref), services);
    const label = String(input.label ?? '').trim();
    // An undefined label is left out when the record is written: the label is gone.
    return oneView(await services.sessions.update(record, { label: label || undefined }, 'label'), services, parts);
  }),
  'console.unthrottle': plugin(async ({ input, services, parts }) => {
    const record = await recordOf(String(input.ref), services);
    const next = record.state === 'throttled' ? { state: 'active' as const, throttledUntil: undefined } : { throttledUntil: undefined };
    return oneView(await services.sessions.update(record, next, 'operator'), services, parts);
  }),
  'console.watch': plugin(async ({ input, services, parts }) => {
    const watchers = parts.events?.watchers;
    if (!watchers) throw serviceError('EventsUnavailable', 'Events are not available on this instance (no background layer)');
    const record = await recordOf(String(input.ref), services);
    if (input.watching === true) await watchers.start(record, { interval_seconds: input.interval_seconds as number | undefined });
    else if ((await watchers.status(record)).watching) await watchers.stop(record);
    return oneView((await services.sessions.find(record.id)) ?? record, services, parts);
  }),
  'console.health': plugin(({ services }) => healthOf(services)),
  'console.jobs': plugin(({ parts }) => allJobs(parts.jobs)),
  'console.start_job': plugin(startJob),
  'console.pool_member': plugin(addToPool),
  'console.pool_member_remove': plugin(removeFromPool),
  'console.events': plugin(({ services, parts, signal }) => consoleEvents(services, parts, signal)),
});
