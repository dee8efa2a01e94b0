// The sandbox over HTTP: the sandbox's fault accounts behave as the README states, through the real
// product: two-factor, challenge, throttling (with the governor), wrong password, unknown username.
import t from 'tap';
import { product } from '../../../helpers/full-app.js';

type R = Record<string, unknown>;
const PASSWORD = 'demo-password';
const TOTP_SEED = 'JBSWY3DPEHPK3PXP';
const p = await product();
t.teardown(() => p.client.close());
const login = (form: R) => p.client.request('POST', '/auth/login', { form });
const as = (sid: string) => ({ 'x-session-id': sid });
const who = async (sid: string) => p.client.request('GET', '/user', { query: { username: 'demo' }, headers: as(sid) });

/** Upstream calls of one method so far, every outcome, from GET /metrics. */
async function upstreamCalls(method: string): Promise<number> {
  const text = (await p.client.request('GET', '/metrics')).text;
  const pattern = new RegExp(`^socialgate_upstream_calls_total\\{[^}]*method="${method}"[^}]*\\} (\\d+)$`, 'gm');
  return [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
}

t.test('demo_2fa: 401 TwoFactorRequired, then the TOTP code logs in', async (t) => {
  const first = await login({ username: 'demo_2fa', password: PASSWORD });
  t.equal(first.status, 401);
  t.match(first.body, { exc_type: 'TwoFactorRequired', hint: /verification_code/ }, 'names the error and the way out');
  const wrong = await login({ username: 'demo_2fa', password: PASSWORD, verification_code: '000000' });
  t.match({ status: wrong.status, body: wrong.body }, { status: 401, body: { exc_type: 'TwoFactorRequired' } }, 'a wrong code is refused the same way');
  const code = await p.client.request('GET', '/auth/totp/code', { query: { seed: TOTP_SEED } });
  t.equal(code.status, 200, 'GET /auth/totp/code needs no session');
  t.match(code.body, /^\d{6}$/, 'a six-digit code');
  const ok = await login({ username: 'demo_2fa', password: PASSWORD, verification_code: code.body });
  t.equal(ok.status, 200, ok.text.slice(0, 300));
  t.match(ok.body, /\S{16,}/, 'answers a session id');
  t.equal((await who(ok.body as string)).status, 200, 'the session works');
});

t.test('demo_challenge: 403 with last_json, resolve with the code, then login works', async (t) => {
  const first = await login({ username: 'demo_challenge', password: PASSWORD });
  t.equal(first.status, 403);
  const body = first.body as R;
  t.match(
    body,
    { exc_type: 'ChallengeRequired', last_json: { message: 'challenge_required', challenge: { api_path: /\/challenge\// } } },
    'the challenge in last_json',
  );
  const resolve = (security_code: string) =>
    p.client.request('POST', '/auth/challenge/resolve', { form: { last_json: JSON.stringify(body.last_json), security_code } });
  const wrong = await resolve('000000');
  t.match({ status: wrong.status, body: wrong.body }, { status: 403, body: { exc_type: 'ChallengeRequired' } }, 'a wrong code leaves the challenge');
  t.equal((await login({ username: 'demo_challenge', password: PASSWORD })).status, 403, 'still challenged');
  const right = await resolve('123456');
  t.equal(right.status, 200, right.text.slice(0, 300));
  t.equal(right.body, true, 'POST /auth/challenge/resolve answers true');
  const ok = await login({ username: 'demo_challenge', password: PASSWORD });
  t.equal(ok.status, 200, ok.text.slice(0, 300));
  t.equal((await who(ok.body as string)).status, 200, 'the session works');
});

t.test('demo_throttled: login works, the next call is 429, the one after never reaches the upstream', async (t) => {
  const logged = await login({ username: 'demo_throttled', password: PASSWORD });
  t.equal(logged.status, 200, logged.text.slice(0, 300));
  const sid = logged.body as string;
  const before = await upstreamCalls('user_info_by_username');
  const first = await who(sid);
  t.equal(first.status, 429);
  t.match(first.body, { exc_type: 'PleaseWaitFewMinutes', hint: /pause|lower/i }, "the platform's throttle, with advice");
  t.match(first.headers.get('retry-after'), /^[1-9]\d*$/, 'with Retry-After in seconds');
  t.equal(await upstreamCalls('user_info_by_username'), before + 1, 'that call reached the upstream (GET /metrics)');
  const second = await who(sid);
  t.equal(second.status, 429, 'the next call is 429 too');
  t.match(second.headers.get('retry-after'), /^[1-9]\d*$/, 'with Retry-After');
  t.ok(Number(second.headers.get('retry-after')) <= Number(first.headers.get('retry-after')), 'counting down, not restarting');
  t.equal(await upstreamCalls('user_info_by_username'), before + 1, 'and never reached the upstream');
  const other = await p.client.request('GET', '/user/followers', { query: { user_id: '5000000001' }, headers: as(sid) });
  t.equal(other.status, 429, 'every route of the session is paused');
  t.equal(await upstreamCalls('user_followers_v1_chunk'), 0, 'without calling the upstream');
  const demo = await p.login();
  t.equal((await who(demo)).status, 200, 'other sessions are not paused');
});

t.test('a wrong password is 401 BadPassword', async (t) => {
  const reply = await login({ username: 'demo', password: 'not-the-password' });
  t.equal(reply.status, 401);
  t.match(reply.body, { exc_type: 'BadPassword', hint: /password/i });
  t.notMatch(reply.text, /not-the-password/, 'the password is not echoed');
});

t.test('an unknown username is 401 with the hint to check it', async (t) => {
  const reply = await login({ username: 'nobody_here_at_all', password: PASSWORD });
  t.equal(reply.status, 401);
  t.match(reply.body, { detail: /doesn't appear to belong to an account/, hint: 'Check the username and retry POST /auth/login.' });
  t.ok(reply.headers.get('x-request-id'), 'with a request id');
});
