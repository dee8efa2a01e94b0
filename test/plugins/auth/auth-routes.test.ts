// Every auth route through HTTP on the sandbox, success and failure: logins (password, two-factor,
// challenge, platform session id), settings export and import, proxy/locale/timezone on every
// restored client, relogin, challenge resolve with and without a session, TOTP.
import t from 'tap';
import { authenticator } from 'otplib';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { UpstreamError } from '../../../engine/types.js';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import { serve, stringBody, type Reply } from '../../helpers/http.js';
import { probeUpstream } from '../../support/probe-upstream.js';

type R = Record<string, unknown>;
/** A settings export, as far as these tests read into it. */
type Export = R & { authorization_data: { sessionid: string } };
const PASSWORD = 'demo-password';
const TOTP_SEED = 'JBSWY3DPEHPK3PXP';
const probe = probeUpstream(createSandbox({ seed: 1 }));
const app = await composeApp(testConfig({ sessionCacheTtlMs: 0 }), { upstream: probe.adapter });
const http = await serve(app);
t.teardown(() => http.close());

const as = (sid: string) => ({ 'x-session-id': sid });
const login = (form: R) => http.request('POST', '/auth/login', { form });
const account = async (sid: string) => (await http.request('GET', '/account', { headers: as(sid) })) as Reply & { body: R };
const exported = async (sid: string) => (await http.request('GET', '/auth/settings', { headers: as(sid) })).body as Export;
const totp = authenticator.clone({ window: 1 });

async function demo(form: R = {}): Promise<string> {
  const reply = await login({ username: 'demo', password: PASSWORD, ...form });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${reply.text}`);
  return reply.body as string;
}

t.test('POST /auth/login: a service-issued id, never the platform cookie', async (t) => {
  const sid = await demo();
  t.match(sid, /^[A-Za-z0-9_-]{32}$/, '192 random bits, base64url');
  const settings = await exported(sid);
  t.not(sid, settings.authorization_data.sessionid);
  t.notMatch(sid, settings.authorization_data.sessionid);
  t.not(await demo(), sid, 'each login gets its own id');
  t.equal((await account(sid)).body.username, 'demo');
});

t.test('POST /auth/login failures: wrong password, unknown username, missing fields', async (t) => {
  t.match(await login({ username: 'demo', password: 'wrong' }), { status: 401, body: { exc_type: 'BadPassword' } });
  const unknown = await login({ username: 'nobody_at_all', password: 'x' });
  t.equal(unknown.status, 401);
  t.match((unknown.body as R).hint, /username/i);
  t.match(await login({ username: 'demo' }), { status: 422, body: { errors: [{ param: 'password' }] } });
  t.match(await login({ username: 'demo', password: PASSWORD, timezone: 'east' }), { status: 422 });
});

t.test('proxy, locale and timezone go to the login client and into the record', async (t) => {
  const form = { proxy: 'http://user:pw@127.0.0.1:3128', locale: 'pt_PT', timezone: '3600' };
  const opensBefore = probe.opened.length;
  const sid = await demo(form);
  t.match(probe.opened.slice(opensBefore), [{ proxy: form.proxy, locale: 'pt_PT', timezone: 3600 }]);
  const settings = await exported(sid);
  t.equal(settings.locale, 'pt_PT');
  t.equal(settings.timezone_offset, 3600);
  t.match(await app.services.store.get(sid), { proxy: form.proxy, locale: 'pt_PT', timezone: 3600, state: 'active' });
});

t.test('two-factor: 401 TwoFactorRequired, the same call with verification_code logs in', async (t) => {
  const first = await login({ username: 'demo_2fa', password: PASSWORD });
  t.match(first, { status: 401, body: { exc_type: 'TwoFactorRequired' } });
  t.match(await login({ username: 'demo_2fa', password: PASSWORD, verification_code: '000000' }), { status: 401, body: { exc_type: 'TwoFactorRequired' } });
  const ok = await login({ username: 'demo_2fa', password: PASSWORD, verification_code: authenticator.generate(TOTP_SEED) });
  t.equal(ok.status, 200, ok.text);
  t.equal((await account(stringBody(ok))).body.username, 'demo_2fa');
});

t.test('challenge: 403 with last_json; resolve takes the code for that one call; the login continues on the same client', async (t) => {
  const first = await login({ username: 'demo_challenge', password: PASSWORD });
  t.match(first, { status: 403, body: { exc_type: 'ChallengeRequired', last_json: { challenge: { api_path: /challenge/ } } } });
  const clientOfLogin = probe.calls.filter((c) => c.method === 'login').at(-1)!.client;
  const resolve = (form: R) => http.request('POST', '/auth/challenge/resolve', { form });
  const lastJson = JSON.stringify((first.body as R).last_json);
  t.match(await resolve({ last_json: lastJson, security_code: '000000' }), { status: 403, body: { exc_type: 'ChallengeRequired' } });
  t.match(await resolve({ last_json: lastJson }), { status: 403 }, 'no code: the platform still wants one (nothing waits for input)');
  t.match(await resolve({ security_code: '123456' }), { status: 422 }, 'last_json is required');
  const right = await resolve({ last_json: lastJson, security_code: '123456' });
  t.match(right, { status: 200, body: true });
  const resolves = probe.calls.filter((c) => c.method === 'challenge_resolve');
  t.same(
    resolves.map((c) => c.opts?.challengeCode),
    ['000000', undefined, '123456'],
    'the code goes with that one call only',
  );
  t.ok(
    resolves.every((c) => c.client === clientOfLogin),
    'resolved on the client that met the challenge',
  );
  const ok = await login({ username: 'demo_challenge', password: PASSWORD });
  t.equal(ok.status, 200, ok.text);
  t.equal(probe.calls.filter((c) => c.method === 'login').at(-1)!.client, clientOfLogin, 'the retried login continues on that client');
});

t.test('challenge resolve with a session: the session is active again', async (t) => {
  const sid = await demo();
  const record = (await app.services.sessions.find(sid))!;
  await app.services.sessions.update(record, { state: 'challenge' });
  const payload = JSON.stringify({ message: 'challenge_required', challenge: { api_path: '/challenge/5000000001/sandbox/' } });
  const reply = await http.request('POST', '/auth/challenge/resolve', { form: { last_json: payload, security_code: '123456' }, headers: as(sid) });
  t.match(reply, { status: 200, body: true });
  t.equal((await app.services.store.get(sid))!.state, 'active');
});

t.test('POST /auth/login/by/sessionid: a new service id from the platform cookie', async (t) => {
  const cookie = (await exported(await demo())).authorization_data.sessionid;
  const reply = await http.request('POST', '/auth/login/by/sessionid', { form: { sessionid: cookie, locale: 'de_DE' } });
  t.equal(reply.status, 200, reply.text);
  t.not(reply.body, cookie);
  t.equal((await account(stringBody(reply))).body.username, 'demo');
  t.equal((await exported(stringBody(reply))).locale, 'de_DE');
  const forged = await http.request('POST', '/auth/login/by/sessionid', { form: { sessionid: '5000000001%3Aforged%3A28' } });
  t.match(forged, { status: 401, body: { exc_type: 'LoginRequired' } });
});

t.test('PATCH /auth/settings: export → import round trip, id rotation, proxy cleared by an empty value', async (t) => {
  const sid = await demo();
  const settings = await exported(sid);
  const imported = await http.request('PATCH', '/auth/settings', { form: { settings: JSON.stringify(settings) } });
  t.equal(imported.status, 200, imported.text);
  t.not(imported.body, sid);
  t.equal((await account(stringBody(imported))).body.username, 'demo', 'the imported export acts for the account');
  t.same((await exported(stringBody(imported))).authorization_data, settings.authorization_data, 'round trip keeps the login');
  t.equal((await account(sid)).status, 200, 'an import without a session leaves other sessions alone');

  const withProxy = await http.request('PATCH', '/auth/settings', { form: { proxy: 'socks5://127.0.0.1:1080', timezone: '-3600' }, headers: as(sid) });
  t.equal(withProxy.status, 200, withProxy.text);
  t.match(await account(sid), { status: 401, body: { exc_type: 'SessionNotFound' } }, 'the old id is revoked');
  t.match((await app.services.store.get(stringBody(withProxy)))!, { proxy: 'socks5://127.0.0.1:1080', timezone: -3600 });
  const cleared = await http.request('PATCH', '/auth/settings', { form: { proxy: '' }, headers: as(stringBody(withProxy)) });
  t.equal(cleared.status, 200, cleared.text);
  const record = (await app.services.store.get(stringBody(cleared)))!;
  t.equal(record.proxy, undefined, 'an empty proxy clears it');
  t.equal(record.timezone, -3600, 'what was not sent is kept');
  t.equal((await account(stringBody(cleared))).status, 200);
  t.match(probe.opened.at(-1), { proxy: undefined, timezone: -3600 });
});

t.test('PATCH /auth/settings failures: a dead export is refused; no settings and no session is a 422', async (t) => {
  const before = await count();
  const dead = { authorization_data: { ds_user_id: '5000000001', sessionid: '5000000001%3Aforged%3A28' }, uuids: {} };
  t.match(await http.request('PATCH', '/auth/settings', { form: { settings: JSON.stringify(dead) } }), { status: 401, body: { exc_type: 'LoginRequired' } });
  t.match(await http.request('PATCH', '/auth/settings', { form: { settings: 'not json' } }), { status: 422 });
  t.match(await http.request('PATCH', '/auth/settings', { form: { locale: 'en_US' } }), { status: 422, body: { errors: [{ param: 'settings' }] } });
  t.equal(await count(), before, 'nothing was saved');
});

t.test('PATCH /auth/relogin saves the refreshed export; a final refusal logs the session out', async (t) => {
  const sid = await demo();
  const before = (await app.services.store.get(sid))!.settings.last_login as number;
  await new Promise((resolve) => setTimeout(resolve, 5));
  t.match(await http.request('PATCH', '/auth/relogin', { headers: as(sid) }), { status: 200, body: true });
  t.ok(((await app.services.store.get(sid))!.settings.last_login as number) > before, 'the new export was saved');
  t.match(await http.request('PATCH', '/auth/relogin'), { status: 401, body: { exc_type: 'SessionRequired' } });
  probe.failNext('relogin', new UpstreamError('BadCredentials', 'Both username and password must be provided.'));
  t.match(await http.request('PATCH', '/auth/relogin', { headers: as(sid) }), { status: 401, body: { exc_type: 'BadCredentials' } });
  t.match(await account(sid), { status: 401, body: { exc_type: 'SessionNotFound' } }, 'logged out');
  const record = (await app.services.store.get(sid))!;
  t.equal(record.state, 'logged_out');
  t.same(record.settings, {}, 'a logged-out record keeps no settings');
});

t.test('GET /auth/settings, TOTP seed, code, enable and disable', async (t) => {
  const sid = await demo();
  t.match(await exported(sid), { authorization_data: { ds_user_id: '5000000001' } });
  t.match(await http.request('GET', '/auth/settings'), { status: 401 });
  const seed = await http.request('GET', '/auth/totp/seed', { headers: as(sid) });
  t.match(seed, { status: 200, body: /^[A-Z2-7]{16,}$/ });
  const code = await http.request('GET', '/auth/totp/code', { query: { seed: seed.body } });
  t.equal(code.status, 200, 'no session needed');
  t.ok(totp.check(stringBody(code), stringBody(seed)), 'the RFC 6238 code otplib computes');
  t.match(await http.request('GET', '/auth/totp/code', { query: { seed: 'not a seed!' } }), { status: 422 });
  // any code but the seed's current one and the sandbox's documented setup code (000000, for the /docs example)
  const wrong = authenticator.generate(stringBody(seed)) === '123456' ? '654321' : '123456';
  t.match(
    await http.request('POST', '/auth/totp', { form: { verification_code: wrong }, headers: as(sid) }),
    { status: 422, body: { exc_type: 'ClientBadRequestError' } },
    'a wrong code is refused',
  );
  const on = await http.request('POST', '/auth/totp', { form: { verification_code: authenticator.generate(stringBody(seed)) }, headers: as(sid) });
  t.equal(on.status, 200, on.text);
  t.ok(Array.isArray(on.body) && on.body.length > 0, 'backup codes');
  t.match(await login({ username: 'demo', password: PASSWORD }), { status: 401, body: { exc_type: 'TwoFactorRequired' } }, 'two-factor is on');
  t.match(await http.request('DELETE', '/auth/totp', { headers: as(sid) }), { status: 200, body: true });
  t.equal((await login({ username: 'demo', password: PASSWORD })).status, 200, 'and off again');
  t.match(await http.request('POST', '/auth/totp', { form: { verification_code: '123456' } }), { status: 401, body: { exc_type: 'SessionRequired' } });
});

t.test('demo_throttled: login works, calls answer 429 with Retry-After', async (t) => {
  const reply = await login({ username: 'demo_throttled', password: PASSWORD });
  t.equal(reply.status, 200);
  const seed = await http.request('GET', '/auth/totp/seed', { headers: as(stringBody(reply)) });
  t.equal(seed.status, 429);
  t.ok(Number(seed.headers.get('retry-after')) > 0);
});

async function count(): Promise<number> {
  let n = 0;
  for await (const _ of app.services.store.list()) n++;
  return n;
}
