// One sandbox client per session: binds arguments as Python would, applies injected faults and
// the throttled account, and runs the method against the shared world.
import { randomUUID } from 'node:crypto';
import type { CallOptions, UpstreamClient } from '../../../engine/types.js';
import { fail, upstreamError } from './errors.js';
import { loseAnswer } from './lost-answers.js';
import type { ActionLimits } from './limits.js';
import type { Rng } from './prng.js';
import { bindArgs, type ClientState, type Ctx, type MethodDef, type SandboxCore } from './registry.js';
import { FIXED } from './world/users.js';
import { Cursors } from './methods/iterators.js';

export interface Faults {
  readonly latencyMs: number;
  readonly throttleRate: number;
  /** The platform's hint carried by an injected throttle (a real throttle's wait is the upstream's to say). */
  readonly throttleSeconds: number;
  readonly errorRate: number;
  /** Share of writes (0..1) applied and then failed as a lost connection. */
  readonly lostAnswerRate: number;
  readonly rng: Rng;
  /** The platform's hidden limits per action class (limits.ts). */
  readonly limits?: ActionLimits;
}

const DEVICE = {
  app_version: '269.0.0.18.75',
  android_version: 26,
  android_release: '8.0.0',
  dpi: '480dpi',
  resolution: '1080x1920',
  manufacturer: 'OnePlus',
  device: 'devitron',
  model: '6T Dev',
  cpu: 'qcom',
  version_code: '314665256',
};

/** The app profile an upgrade moves a saved device to (aiograpi's override_app_version): the app's fields change, the hardware's stay. */
const CURRENT_APP = { app_version: '410.0.0.36.71', version_code: '813205847' };

export function upgradeAppProfile(state: ClientState): void {
  state.deviceSettings = { ...state.deviceSettings, ...CURRENT_APP };
  state.userAgent = userAgent(state.locale, state.deviceSettings);
}

export class SandboxClient implements UpstreamClient {
  readonly state: ClientState;
  /** The async iterators read a page at a time (CallOptions.page). */
  private readonly cursors = new Cursors();

  constructor(
    private readonly core: SandboxCore,
    private readonly methods: ReadonlyMap<string, MethodDef>,
    private readonly faults: Faults,
    settings: Readonly<Record<string, unknown>>,
  ) {
    this.state = freshState();
    loadSettings(this.state, core, settings);
  }

  /**
   * Not an async function: most methods answer synchronously, and an async frame awaiting one would
   * cost the call a second promise and two turns of the microtask queue. A throw still arrives as a
   * rejection, as the port promises.
   */
  call(method: string, kwargs: Readonly<Record<string, unknown>>, opts: CallOptions = {}): Promise<unknown> {
    try {
      const def = this.methods.get(method);
      if (!def) fail('AttributeError', `'Client' object has no attribute '${method}'`);
      const args = bindArgs(method, kwargs ?? {}, this.core.signatures);
      const waiting = def!.local ? undefined : this.platformWeather(opts);
      if (waiting) return waiting.then(() => this.run(def!, method, args, opts));
      return this.run(def!, method, args, opts);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The call once the platform's weather has passed: the account's checks, then the method, then a lost answer if one is due. */
  private run(def: MethodDef, method: string, args: Readonly<Record<string, unknown>>, opts: CallOptions): Promise<unknown> {
    const ctx = this.context(opts);
    if (!def.open) {
      this.core.used(ctx.me().pk);
      if (this.state.pk === FIXED.demo_throttled)
        fail('PleaseWaitFewMinutes', 'Please wait a few minutes before you try again.', {
          message: 'Please wait a few minutes before you try again.',
          status: 'fail',
        });
      this.faults.limits?.count(ctx.me().pk, method);
    }
    if (opts.page) return Promise.resolve(this.cursors.page(method, args, opts.page, this.chunkRunner(ctx)));
    const result = Promise.resolve(def.run(ctx, args));
    if (def.local || this.faults.lostAnswerRate <= 0) return result;
    return result.then((value) => {
      loseAnswer(method, this.faults.lostAnswerRate, this.faults.rng);
      return value;
    });
  }

  /** An iterator's chunk calls: bound like any call, run with the context of the page being read. */
  private chunkRunner(ctx: Ctx) {
    return (method: string, kwargs: Readonly<Record<string, unknown>>) => this.methods.get(method)!.run(ctx, bindArgs(method, kwargs, this.core.signatures));
  }

  account(): string | undefined {
    return this.state.pk ?? undefined;
  }

  async exportSettings(): Promise<Record<string, unknown>> {
    return exportSettings(this.state);
  }

  async close(): Promise<void> {}

  private context(opts: CallOptions): Ctx {
    const { core, state } = this;
    return {
      core,
      world: core.world,
      state,
      opts,
      me() {
        const user = state.pk ? core.world.users.get(state.pk) : undefined;
        return user ?? fail('LoginRequired', 'login_required', { message: 'login_required', status: 'fail', logout_reason: 2 });
      },
      nowSec: () => Math.floor(core.now() / 1000),
    };
  }

  /**
   * Latency and random failures a real platform has, when the operator asks for them. A promise
   * only when there is latency to wait out: most calls (no latency) cost no extra async turn.
   */
  private platformWeather(opts: CallOptions): Promise<void> | void {
    const { latencyMs } = this.faults;
    if (latencyMs > 0) return new Promise((resolve) => setTimeout(resolve, latencyMs)).then(() => this.faultsAfterWait(opts));
    this.faultsAfterWait(opts);
  }

  private faultsAfterWait(opts: CallOptions): void {
    const { throttleRate, throttleSeconds, errorRate, rng } = this.faults;
    if (opts.signal?.aborted) fail('ClientRequestTimeout', 'The request was aborted');
    if (errorRate > 0 && rng.next() < errorRate) fail('ClientConnectionError', 'ConnectionResetError: Connection reset by peer (sandbox fault injection)');
    if (throttleRate > 0 && rng.next() < throttleRate) throw injectedThrottle(throttleSeconds);
  }
}

/**
 * An injected throttle carries a short wait as the platform's hint: the session pauses for that long, not for
 * the service's back-off (five minutes by default), so a client that honours Retry-After is seen to get through.
 */
function injectedThrottle(seconds: number): Error {
  return upstreamError('PleaseWaitFewMinutes', `Please wait a few minutes before you try again. (sandbox fault injection: ${seconds} s)`, undefined, seconds);
}

function freshState(): ClientState {
  return {
    pk: null,
    sessionid: null,
    uuids: {
      phone_id: randomUUID(),
      uuid: randomUUID(),
      client_session_id: randomUUID(),
      advertising_id: randomUUID(),
      android_device_id: `android-${randomUUID().replace(/-/g, '').slice(0, 16)}`,
      request_id: randomUUID(),
      tray_session_id: randomUUID(),
    },
    deviceSettings: { ...DEVICE },
    userAgent: userAgent('en_US'),
    locale: 'en_US',
    country: 'US',
    countryCode: 1,
    timezoneOffset: -14400,
    proxy: '',
    lastLogin: null,
    mid: randomUUID().replace(/-/g, '').slice(0, 28),
  };
}

function userAgent(locale: string, device: Readonly<Record<string, unknown>> = DEVICE): string {
  const d = { ...DEVICE, ...device };
  return (
    `Instagram ${d.app_version} Android (${d.android_version}/${d.android_release}; ${d.dpi}; ${d.resolution}; ` +
    `${d.manufacturer}; ${d.model}; ${d.device}; ${d.cpu}; ${locale}; ${d.version_code})`
  );
}

/** Loads a settings export; the account is restored only when its sessionid verifies. */
export function loadSettings(state: ClientState, core: SandboxCore, settings: Readonly<Record<string, unknown>>): void {
  const uuids = objectIn(settings.uuids);
  // an opaque export: its uuids are taken as they are, as exportSettings wrote them (strings)
  if (uuids) state.uuids = { ...state.uuids, ...(uuids as Readonly<Record<string, string>>) };
  const deviceSettings = objectIn(settings.device_settings);
  if (deviceSettings) state.deviceSettings = { ...deviceSettings };
  if (typeof settings.locale === 'string') state.locale = settings.locale;
  if (typeof settings.country === 'string') state.country = settings.country;
  if (typeof settings.country_code === 'number') state.countryCode = settings.country_code;
  if (typeof settings.timezone_offset === 'number') state.timezoneOffset = settings.timezone_offset;
  if (typeof settings.mid === 'string') state.mid = settings.mid;
  if (typeof settings.last_login === 'number') state.lastLogin = settings.last_login;
  state.userAgent = typeof settings.user_agent === 'string' ? settings.user_agent : userAgent(state.locale);
  const auth = objectIn(settings.authorization_data) ?? {};
  const cookie = objectIn(settings.cookies)?.sessionid;
  const sessionid = typeof auth.sessionid === 'string' ? auth.sessionid : typeof cookie === 'string' ? cookie : '';
  const pk = sessionid ? core.verifySession(sessionid) : null;
  state.pk = pk && core.world.users.has(pk) && String(auth.ds_user_id ?? pk) === pk ? pk : null;
  state.sessionid = state.pk ? sessionid : null;
}

/** A field of an export that holds an object, else undefined: no field of an opaque export is trusted. */
function objectIn(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

export function exportSettings(state: ClientState): Record<string, unknown> {
  const authorization = state.pk ? { ds_user_id: state.pk, sessionid: state.sessionid, should_use_header_over_cookies: true } : {};
  return {
    uuids: { ...state.uuids },
    mid: state.mid,
    ig_u_rur: null,
    ig_www_claim: null,
    authorization_data: authorization,
    cookies: state.pk ? { sessionid: state.sessionid, ds_user_id: state.pk, mid: state.mid } : {},
    last_login: state.lastLogin,
    device_settings: { ...state.deviceSettings },
    user_agent: state.userAgent,
    country: state.country,
    country_code: state.countryCode,
    locale: state.locale,
    timezone_offset: state.timezoneOffset,
  };
}

/** Marks the client logged in as `pk`. */
export function logIn(ctx: Ctx, pk: string): void {
  ctx.state.pk = pk;
  ctx.state.sessionid = ctx.core.sessionFor(pk);
  ctx.state.lastLogin = ctx.core.now() / 1000;
}
