// Scheduled writes (manifest/writes.yaml, and `publish_at` on the upload and direct message routes):
// the background module that runs them, the routes that list, show and cancel them, and the route
// guard that turns a request with `publish_at` into a scheduled write answered 202. The guard sits
// outside the account-safety policy: a scheduled write spends its budget when it runs, not now.
import { serviceError as jobsError } from '../jobs/errors.js';
import { compareVersions, VERSION } from '../../engine/versions.js';
import type { GuardedCall, Plugin, PluginInput, RouteGuard, RouteSpec, Services } from '../../engine/types.js';
import { publishTime, scheduleSettings } from './schedule-settings.js';
import { ScheduledWrites } from './schedule-store.js';
import { writeView } from './schedule-view.js';

export { SCHEDULE_SETTING_KEYS, scheduleSettings } from './schedule-settings.js';

/** Who keeps a write sent with publish_at: `platform` (the library's schedule_at) or `service` (a scheduled write, 202). */
export const SCHEDULED_BY = 'Scheduled-By';

const installed = new WeakMap<Services, ScheduledWrites>();
/**
 * The app's clock for writes that run later, set when the writes' guards bind (bin/compose.ts gives
 * them the policy's): a deferred write's time comes from the policy's Retry-After, so both must
 * read one clock. Read at each use: the background module is installed before the guards bind.
 */
const clocks = new WeakMap<Services, () => number>();
export const useClock = (services: Services, now: () => number): void => void clocks.set(services, now);
export const clockOf = (services: Services): number => (clocks.get(services) ?? Date.now)();

/** The background module: defines the scheduled write's work kind before the queue starts. */
export function installWrites(services: Services): void {
  if (!services.work) return;
  const writes = new ScheduledWrites({
    work: services.work,
    sessions: services.sessions,
    routes: services.routes,
    log: services.log,
    dataDir: services.config.dataDir,
    settings: scheduleSettings(services.config.extra),
    now: () => clockOf(services),
  });
  writes.install();
  installed.set(services, writes);
}

/** The app's scheduled writes; 503 on an instance built without the background layer. */
export function writesOf(services: Services): ScheduledWrites {
  const found = installed.get(services);
  if (!found) throw jobsError('JobsUnavailable', 'Background work is not available on this instance: writes cannot run later');
  return found;
}

/** Answers `publish_at` with a scheduled write (202), or hands it to the library's `schedule_at` where the setting chooses it. */
export const scheduleGuard: RouteGuard = {
  name: 'writes.schedule',
  bind(route, services) {
    if (!route.params.some((p) => p.name === 'publish_at')) return undefined;
    const settings = scheduleSettings(services.config.extra);
    const native = settings.native ? nativeSince(route) : undefined;
    return async (call, next) => {
      const given = call.bag.publish_at;
      if (given === undefined || call.origin === 'background') return next();
      const runAt = publishTime(String(given), settings, clockOf(services));
      if (native && libraryHas(native, services.upstream.library.version) && (await professional(call, services))) {
        delete call.bag.publish_at;
        call.bag.schedule_at = Math.floor(runAt / 1000);
        call.reply.headers[SCHEDULED_BY] = 'platform';
        return next();
      }
      const write = await writesOf(services).create(call, 'scheduled', runAt);
      call.reply.status = 202;
      call.reply.headers[SCHEDULED_BY] = 'service';
      return writeView(write);
    };
  },
};

/**
 * Whether the session's account is professional (business or creator: aiograpi's User
 * `account_type` 2 or 3, or `is_business`), the only accounts the platform schedules posts for.
 * One read of the account's own record; a read that fails leaves the scheduling to the service.
 */
async function professional(call: GuardedCall, services: Services): Promise<boolean> {
  const session = call.session;
  if (!session) return false;
  try {
    const user = (await services.sessions.client(session).call('user_info', { user_id: session.account.pk })) as Record<string, unknown>;
    return user.account_type === 2 || user.account_type === 3 || user.is_business === true;
  } catch {
    return false;
  }
}

/** The library version that added the route's own `schedule_at`; undefined when the route has none. */
function nativeSince(route: RouteSpec): string | undefined {
  const param = route.params.find((p) => p.name === 'schedule_at');
  return param ? (param.since ?? '0') : undefined;
}

/** An unknown version (no sidecar started yet) is not trusted with a native schedule: the service schedules it. */
function libraryHas(since: string, version: string): boolean {
  return VERSION.test(version) && compareVersions(version, since) >= 0;
}

const plugin = (handle: (input: PluginInput) => Promise<unknown>): Plugin => ({ uses: [], handle });

export const writePlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'writes.scheduled.list': plugin(async (input) => {
    const state = typeof input.input.state === 'string' ? input.input.state : undefined;
    return (await writesOf(input.services).list(input.caller, { pk: input.session?.account.pk, state })).map(writeView);
  }),
  'writes.scheduled.show': plugin(async (input) => writeView(await writesOf(input.services).get(String(input.input.id), input.caller))),
  'writes.scheduled.cancel': plugin(async (input) => writeView(await writesOf(input.services).cancel(String(input.input.id), input.caller))),
});
