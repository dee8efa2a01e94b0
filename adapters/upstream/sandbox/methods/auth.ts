// Login, settings and two-factor: the fixed accounts' behaviour (2FA, challenge, throttled).
import { authenticator } from 'otplib';
import type { JsonValue } from '../../../../engine/types.js';
import { int, optStr, record, str } from '../args.js';
import { exportSettings, loadSettings, logIn } from '../client.js';
import { fail } from '../errors.js';
import { andReturn } from './common.js';
import type { Ctx, MethodTable } from '../registry.js';
import { CHALLENGE_CODE, FIXED } from '../world/users.js';

const totp = (ctx: Ctx) => authenticator.clone({ epoch: ctx.core.now(), window: 1 });
/**
 * The sandbox also takes this code when enabling two-factor, so the documented example request of
 * POST /auth/totp works as written (a real code changes every 30 s). Login still wants a real code.
 */
export const SANDBOX_TOTP_SETUP_CODE = '000000';
const setupCodeOk = (ctx: Ctx, code: string, seed: string): boolean => code === SANDBOX_TOTP_SETUP_CODE || totp(ctx).check(code, seed);

function challengePayload(pk: string): JsonValue {
  return {
    message: 'challenge_required',
    status: 'fail',
    error_type: 'checkpoint_challenge_required',
    lock: false,
    challenge: {
      url: `https://i.instagram.com/challenge/${pk}/sandbox/`,
      api_path: `/challenge/${pk}/sandbox/`,
      hide_webview_header: true,
      lock: true,
      logout: false,
      native_flow: true,
      flow_render_type: 3,
    },
  };
}

function login(ctx: Ctx, username: string, password: string, code: string): boolean {
  const pk = ctx.world.byUsername.get(username.trim().toLowerCase());
  const user = pk ? ctx.world.users.get(pk) : undefined;
  if (!user?.password) {
    fail('UnknownError', "The username you entered doesn't appear to belong to an account. Please check your username and try again.", {
      message: "The username you entered doesn't appear to belong to an account. Please check your username and try again.",
      invalid_credentials: true,
      error_type: 'invalid_user',
      status: 'fail',
    });
  }
  if (password !== user!.password) {
    fail('BadPassword', 'The password you entered is incorrect. Please try again.', {
      message: 'The password you entered is incorrect. Please try again.',
      error_type: 'bad_password',
      status: 'fail',
    });
  }
  if (ctx.world.challenged.has(user!.pk)) fail('ChallengeRequired', 'challenge_required', challengePayload(user!.pk));
  if (user!.totpEnabled && user!.totpSeed) {
    const ok = code !== '' && totp(ctx).check(code.replace(/\s/g, ''), user!.totpSeed);
    if (!ok) {
      fail(
        'TwoFactorRequired',
        code ? 'The security code you entered is not valid. Please check the code and try again.' : 'Two-factor authentication required',
        {
          message: 'Two-factor authentication required',
          two_factor_required: true,
          status: 'fail',
          error_type: 'two_factor_required',
          two_factor_info: {
            username: user!.username,
            two_factor_identifier: `sandbox-${user!.pk}`,
            totp_two_factor_on: true,
            sms_two_factor_on: false,
            pk: user!.pk,
          },
        },
      );
    }
  }
  logIn(ctx, user!.pk);
  return true;
}

export const authMethods: MethodTable = {
  login: { open: true, run: (ctx, a) => login(ctx, optStr(a.username) ?? '', optStr(a.password) ?? '', optStr(a.verification_code) ?? '') },
  login_by_sessionid: {
    open: true,
    run(ctx, a) {
      const pk = ctx.core.verifySession(str(a.sessionid, 'sessionid'));
      if (!pk || !ctx.world.users.has(pk))
        fail('LoginRequired', 'login_required: the sessionid is not valid in this sandbox world', { message: 'login_required', status: 'fail' });
      logIn(ctx, pk!);
      return true;
    },
  },
  relogin: {
    run(ctx) {
      logIn(ctx, ctx.me().pk);
      return true;
    },
  },
  get_settings: { open: true, local: true, run: (ctx) => exportSettings(ctx.state) },
  set_settings: {
    open: true,
    local: true,
    run(ctx, a) {
      loadSettings(ctx.state, ctx.core, record(a.settings) ?? {});
      return true;
    },
  },
  set_proxy: { open: true, local: true, run: (ctx, a) => andReturn((ctx.state.proxy = optStr(a.dsn) ?? ''), null) },
  set_locale: {
    open: true,
    local: true,
    run(ctx, a) {
      const locale = str(a.locale, 'locale');
      ctx.state.locale = locale;
      const country = locale.split('_')[1];
      if (country) ctx.state.country = country;
      return null;
    },
  },
  set_timezone_offset: { open: true, local: true, run: (ctx, a) => andReturn((ctx.state.timezoneOffset = int(a.seconds, 'seconds')), null) },
  expose: { run: () => ({ status: 'ok' }) },
  challenge_resolve: {
    open: true,
    run(ctx, a) {
      const last = record(a.last_json) ?? {};
      const path = String((last.challenge as Record<string, unknown> | undefined)?.api_path ?? '');
      const pk = /\/challenge\/(\d+)\//.exec(path)?.[1] ?? ctx.state.pk ?? FIXED.demo_challenge;
      if (!ctx.world.challenged.has(pk)) return true;
      if (ctx.opts.challengeCode !== CHALLENGE_CODE) {
        fail(
          'ChallengeRequired',
          ctx.opts.challengeCode ? 'The security code is not valid' : 'challenge_required: a security code is needed',
          challengePayload(pk),
        );
      }
      ctx.world.challenged.delete(pk);
      return true;
    },
  },
  totp_generate_seed: {
    run(ctx) {
      const me = ctx.me();
      me.totpSeed = authenticator.generateSecret(20);
      return me.totpSeed;
    },
  },
  totp_generate_code: { open: true, local: true, run: (ctx, a) => totp(ctx).generate(str(a.seed, 'seed').replace(/\s/g, '').toUpperCase()) },
  totp_enable: {
    run(ctx, a) {
      const me = ctx.me();
      if (!me.totpSeed || !setupCodeOk(ctx, str(a.verification_code, 'verification_code'), me.totpSeed)) {
        fail('ClientBadRequestError', 'The code you entered is not valid. Generate a seed with totp_generate_seed and pass its current code.');
      }
      me.totpEnabled = true;
      return Array.from({ length: 5 }, (_, i) => `${me.pk.slice(-4)}${String(1000 + i * 1731).slice(-4)}`);
    },
  },
  totp_disable: {
    run(ctx) {
      const me = ctx.me();
      me.totpEnabled = false;
      return true;
    },
  },
};
