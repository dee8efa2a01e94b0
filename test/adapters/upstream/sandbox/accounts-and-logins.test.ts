// The fixed accounts and the session lifecycle: logins, 2FA, challenge, throttling, settings
// exports that survive a restart, and fault injection.
import t from 'tap';
import { authenticator } from 'otplib';
import { createSandbox, sandboxOptionsFromEnv, TOTP_SEED } from '../../../../adapters/upstream/sandbox/index.js';
import { SANDBOX_TOTP_SETUP_CODE } from '../../../../adapters/upstream/sandbox/methods/auth.js';
import { loginAs } from '../../../helpers/sandbox.js';
import { UpstreamError } from '../../../../engine/types.js';
import { errorWith } from '../../../helpers/assert.js';
import { product } from '../../../helpers/full-app.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const sandbox = createSandbox({ seed: 3, now: () => NOW });
const fresh = () => sandbox.open({ settings: {} });

t.test('a fresh client is logged out; client-local helpers still work', async (t) => {
  const client = await fresh();
  await t.rejects(client.call('user_info', { user_id: '5000000001' }), errorWith({ excType: 'LoginRequired' }));
  t.equal(await client.call('set_locale', { locale: 'pt_PT' }), null);
  t.equal(await client.call('set_timezone_offset', { seconds: 3600 }), null);
  t.equal(await client.call('set_proxy', { dsn: 'http://127.0.0.1:9' }), null);
  const settings = (await client.call('get_settings', {})) as Record<string, unknown>;
  t.equal(settings.locale, 'pt_PT');
  t.equal(settings.country, 'PT');
  t.equal(settings.timezone_offset, 3600);
  t.same(settings.authorization_data, {});
});

t.test('demo logs in; the export restores the account on a new adapter with the same seed', async (t) => {
  const client = await fresh();
  t.equal(await client.call('login', { username: 'demo', password: 'demo-password' }), true);
  const settings = await client.exportSettings();
  for (const key of ['uuids', 'device_settings', 'user_agent', 'authorization_data', 'cookies', 'last_login', 'country', 'locale', 'timezone_offset'])
    t.ok(key in settings, key);
  const auth = settings.authorization_data as { ds_user_id: string; sessionid: string };
  t.equal(auth.ds_user_id, '5000000001');
  const restarted = createSandbox({ seed: 3, now: () => NOW });
  const again = await restarted.open({ settings });
  t.equal(((await again.call('account_info', {})) as { username: string }).username, 'demo', 'restored after a restart');
  t.equal(await again.call('relogin', {}), true);
  const otherWorld = createSandbox({ seed: 4, now: () => NOW });
  await t.rejects(
    (await otherWorld.open({ settings })).call('account_info', {}),
    errorWith({ excType: 'LoginRequired' }),
    'a sessionid of another world does not verify',
  );
  const bySession = await fresh();
  t.equal(await bySession.call('login_by_sessionid', { sessionid: auth.sessionid }), true);
  t.equal(((await bySession.call('account_info', {})) as { pk: string }).pk, '5000000001');
  await t.rejects((await fresh()).call('login_by_sessionid', { sessionid: '5000000001%3Aforged%3A28' }), errorWith({ excType: 'LoginRequired' }));
  const loaded = await fresh();
  t.equal(await loaded.call('set_settings', { settings }), true);
  t.equal(((await loaded.call('account_info', {})) as { pk: string }).pk, '5000000001', 'set_settings loads an export');
});

t.test('wrong password and unknown username', async (t) => {
  await t.rejects((await fresh()).call('login', { username: 'demo', password: 'nope' }), errorWith({ excType: 'BadPassword' }));
  const err = await (await fresh()).call('login', { username: 'nobody_here', password: 'x' }).catch((e: unknown) => e);
  t.ok(err instanceof UpstreamError);
  t.match((err as UpstreamError).message, /username you entered doesn't appear to belong to an account/);
});

t.test('demo_2fa needs the current TOTP code of the documented seed', async (t) => {
  const client = await fresh();
  const err = (await client.call('login', { username: 'demo_2fa', password: 'demo-password' }).catch((e: unknown) => e)) as UpstreamError;
  t.equal(err.excType, 'TwoFactorRequired');
  t.match(err.lastJson, { two_factor_required: true, two_factor_info: { username: 'demo_2fa' } });
  await t.rejects(
    client.call('login', { username: 'demo_2fa', password: 'demo-password', verification_code: '000000' }),
    errorWith({ excType: 'TwoFactorRequired' }),
  );
  const code = authenticator.clone({ epoch: NOW }).generate(TOTP_SEED);
  t.equal(await client.call('totp_generate_code', { seed: TOTP_SEED }), code, 'totp_generate_code agrees with the clock');
  t.equal(await client.call('login', { username: 'demo_2fa', password: 'demo-password', verification_code: code }), true);
  t.equal(((await client.call('account_info', {})) as { username: string }).username, 'demo_2fa');
});

t.test('demo_challenge: ChallengeRequired with a payload until resolved with 123456', async (t) => {
  const local = createSandbox({ seed: 3, now: () => NOW });
  const client = await local.open({ settings: {} });
  const err = (await client.call('login', { username: 'demo_challenge', password: 'demo-password' }).catch((e: unknown) => e)) as UpstreamError;
  t.equal(err.excType, 'ChallengeRequired');
  t.match(err.lastJson, { message: 'challenge_required', challenge: { api_path: /\/challenge\/5000000003\// } });
  await t.rejects(client.call('challenge_resolve', { last_json: err.lastJson }), errorWith({ excType: 'ChallengeRequired' }), 'no code');
  await t.rejects(
    client.call('challenge_resolve', { last_json: err.lastJson }, { challengeCode: '999999' }),
    errorWith({ excType: 'ChallengeRequired' }),
    'wrong code',
  );
  t.equal(await client.call('challenge_resolve', { last_json: err.lastJson }, { challengeCode: '123456' }), true);
  t.equal(await client.call('login', { username: 'demo_challenge', password: 'demo-password' }), true);
});

t.test('demo_throttled logs in, then every platform call raises PleaseWaitFewMinutes', async (t) => {
  const client = await loginAs(sandbox, 'demo_throttled');
  for (const [method, kwargs] of [
    ['account_info', {}],
    ['user_info', { user_id: '5000000001' }],
    ['media_like', { media_id: '1' }],
    ['relogin', {}],
  ] as const) {
    await t.rejects(client.call(method, kwargs), errorWith({ excType: 'PleaseWaitFewMinutes' }), method);
  }
  const settings = (await client.call('get_settings', {})) as { authorization_data: { ds_user_id: string } };
  t.equal(settings.authorization_data.ds_user_id, '5000000004', 'the settings export still works');
});

t.test('two-factor enable and disable for an account', async (t) => {
  const client = await loginAs(sandbox);
  const seed = (await client.call('totp_generate_seed', {})) as string;
  t.match(seed, /^[A-Z2-7]+$/);
  // any code but the seed's current one and the documented setup code (SANDBOX_TOTP_SETUP_CODE)
  const wrong = authenticator.clone({ epoch: NOW }).generate(seed) === '123456' ? '654321' : '123456';
  await t.rejects(client.call('totp_enable', { verification_code: wrong }), errorWith({ excType: 'ClientBadRequestError' }));
  const codes = (await client.call('totp_enable', { verification_code: authenticator.clone({ epoch: NOW }).generate(seed) })) as string[];
  t.ok(Array.isArray(codes) && codes.length > 0, 'backup codes');
  t.equal(await client.call('totp_disable', {}), true);
  t.ok(await client.call('totp_enable', { verification_code: SANDBOX_TOTP_SETUP_CODE }), 'the documented setup code turns it on too');
  t.equal(await client.call('totp_disable', {}), true);
});

t.test('fault injection: latency, throttling and connection errors by rate', async (t) => {
  const always = createSandbox({ seed: 3, throttleRate: 1 });
  const client = await always.open({ settings: {} });
  await t.rejects(
    client.call('login', { username: 'demo', password: 'demo-password' }),
    errorWith({ excType: 'PleaseWaitFewMinutes', retryAfter: 3 }),
    'with a short hint, 3 s by default',
  );
  const hinted = await createSandbox({ seed: 3, throttleRate: 1, throttleSeconds: 7 }).open({ settings: {} });
  await t.rejects(
    hinted.call('login', { username: 'demo', password: 'demo-password' }),
    errorWith({ excType: 'PleaseWaitFewMinutes', retryAfter: 7 }),
    'or as set',
  );
  t.equal(await client.call('get_settings', {}).then(() => 'local'), 'local', 'client-local helpers are not faulted');
  const broken = createSandbox({ seed: 3, errorRate: 1 });
  await t.rejects(
    (await broken.open({ settings: {} })).call('login', { username: 'demo', password: 'demo-password' }),
    errorWith({ excType: 'ClientConnectionError' }),
  );
  const half = createSandbox({ seed: 3, errorRate: 0.5 });
  const c = await half.open({ settings: {} });
  let failures = 0;
  for (let i = 0; i < 200; i++)
    failures += await c.call('media_pk_from_code', { code: 'B' }).then(
      () => 0,
      () => 0,
    );
  for (let i = 0; i < 200; i++)
    failures += await c.call('login', { username: 'demo', password: 'demo-password' }).then(
      () => 0,
      () => 1,
    );
  t.ok(failures > 60 && failures < 140, `about half fail (${failures}/200)`);
  const slow = createSandbox({ seed: 3, latencyMs: 40 });
  const started = Date.now();
  await (await slow.open({ settings: {} })).call('login', { username: 'demo', password: 'demo-password' });
  t.ok(Date.now() - started >= 35, 'latency is added');
});

t.test('settings from the environment', async (t) => {
  t.same(sandboxOptionsFromEnv({}), { liveSeconds: 60 }, 'alive by default: a happening a minute');
  t.same(
    sandboxOptionsFromEnv({
      SANDBOX_SEED: '42',
      SANDBOX_LATENCY_MS: '25',
      SANDBOX_THROTTLE_RATE: '0.1',
      SANDBOX_ERROR_RATE: '0',
      SANDBOX_LIVE_SECONDS: '0',
      OTHER: 'x',
    }),
    { seed: 42, latencyMs: 25, throttleRate: 0.1, errorRate: 0, liveSeconds: 0 },
  );
  t.throws(() => sandboxOptionsFromEnv({ SANDBOX_LIVE_SECONDS: '-1' }), /SANDBOX_LIVE_SECONDS/);
  t.throws(() => sandboxOptionsFromEnv({ SANDBOX_SEED: 'abc' }), /SANDBOX_SEED/);
  t.throws(() => sandboxOptionsFromEnv({ SANDBOX_THROTTLE_RATE: '1.5' }), /SANDBOX_THROTTLE_RATE/);
  t.same(sandboxOptionsFromEnv({ SANDBOX_THROTTLE_SECONDS: '2' }), { liveSeconds: 60, throttleSeconds: 2 });
  t.throws(() => sandboxOptionsFromEnv({ SANDBOX_THROTTLE_SECONDS: '0.5' }), /SANDBOX_THROTTLE_SECONDS/);
  t.throws(() => sandboxOptionsFromEnv({ SANDBOX_LATENCY_MS: '-1' }), /SANDBOX_LATENCY_MS/);
  t.same(await sandbox.ready(), { ok: true });
  t.same(sandbox.library, { name: 'aiograpi', version: '1.0.9', emulated: true }, 'the library it emulates (commit 1429e0d)');
});

t.test('an injected throttle pauses the session for its hint only: a client that honours Retry-After gets through', async (t) => {
  const { client, login } = await product({ extra: { SANDBOX_THROTTLE_RATE: '0.3', SANDBOX_THROTTLE_SECONDS: '1' } });
  t.teardown(() => client.close());
  let sid = '';
  for (let tries = 0; !sid && tries < 20; tries++) sid = await login().catch(() => '');
  const statuses: number[] = [];
  const waits = new Set<string>();
  for (let calls = 0; calls < 40 && statuses.filter((s) => s === 200).length < 15; calls++) {
    const reply = await client.request('GET', '/user', { query: { user_id: '5000000002' }, headers: { 'x-session-id': sid } });
    statuses.push(reply.status);
    if (reply.status === 429) {
      waits.add(String(reply.headers.get('retry-after')));
      await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after')) * 1000));
    }
  }
  const firstThrottle = statuses.indexOf(429);
  t.ok(firstThrottle >= 0, `a throttle was injected (${statuses.join(' ')})`);
  t.same([...waits], ['1'], 'each 429 asks for the configured second');
  t.ok(statuses.slice(firstThrottle).includes(200), 'and calls after the wait succeed again');
});
