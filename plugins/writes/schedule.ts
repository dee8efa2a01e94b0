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

/**
 * One app's writes that run later: the scheduled writes (undefined on an app without the background
 * layer) and the clock they and the guards read. It is the modules' clock, the account-safety policy's
 * too: a deferred write's time comes from the policy's Retry-After, so both must read one clock.
 */
export interface WritesParts {
  readonly writes: ScheduledWrites | undefined;
  readonly now: () => number;
}

/** The module's start: defines the scheduled write's work kind before the queue starts. */
export function startWrites(services: Services, now: () => number = Date.now): WritesParts {
  if (!services.work) return { writes: undefined, now };
  const writes = new ScheduledWrites({
    work: services.work,
    sessions: services.sessions,
    routes: services.routes,
    log: services.log,
    dataDir: services.config.dataDir,
    settings: scheduleSettings(services.config.extra),
    now,
  });
  writes.install();
  return { writes, now };
}

/** The app's scheduled writes; 503 on an instance built without the background layer. */
export function writesOf(parts: WritesParts): ScheduledWrites {
  const found = parts.writes;
  if (!found) throw jobsError('JobsUnavailable', 'Background work is not available on this instance: writes cannot run later');
  return found;
}

/** Answers `publish_at` with a scheduled write (202), or hands it to the library's `schedule_at` where the setting chooses it. */
export const scheduleGuard = (writes: WritesParts): RouteGuard => ({
  name: 'writes.schedule',
  bind(route, services) {
    if (!route.params.some((p) => p.name === 'publish_at')) return undefined;
    const settings = scheduleSettings(services.config.extra);
    const native = settings.native ? nativeSince(route) : undefined;
    return async (call, next) => {
      const given = call.bag.publish_at;
      if (given === undefined || call.origin === 'background') return next();
      const runAt = publishTime(String(given), settings, writes.now());
      if (native && libraryHas(native, services.upstream.library.version) && (await professional(call, services))) {
        delete call.bag.publish_at;
        call.bag.schedule_at = Math.floor(runAt / 1000);
        call.reply.headers[SCHEDULED_BY] = 'platform';
        return next();
      }
      const write = await writesOf(writes).create(call, 'scheduled', runAt);
      call.reply.status = 202;
      call.reply.headers[SCHEDULED_BY] = 'service';
      return writeView(write);
    };
  },
});

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

const plugin = (handle: (input: PluginInput<WritesParts>) => Promise<unknown>): Plugin<WritesParts> => ({ uses: [], handle });

export const writePlugins: Readonly<Record<string, Plugin<WritesParts>>> = Object.freeze({
  'writes.scheduled.list': plugin(async (input) => {
    const state = typeof input.input.state === 'string' ? input.input.state : undefined;
    return (await writesOf(input.parts).list(input.caller, { pk: input.session?.account.pk, state })).map(writeView);
  }),
  'writes.scheduled.show': plugin(async (input) => writeView(await writesOf(input.parts).get(String(input.input.id), input.caller))),
  'writes.scheduled.cancel': plugin(async (input) => writeView(await writesOf(input.parts).cancel(String(input.input.id), input.caller))),
});
