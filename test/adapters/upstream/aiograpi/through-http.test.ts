// The aiograpi sidecar end to end through HTTP: the real manifest and plugins on the engine, the
// stand-in library behind the sidecar. Results, error mapping (including the sidecar's own 504 and
// 503), challenge resolution, downloads and uploads, a killed sidecar, readiness and versions.
import { composeApp } from '../../../../bin/compose.js';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { testConfig } from '../../../../engine/config.js';
import { serve } from '../../../helpers/http.js';
import { servedOnAiograpi } from '../../../helpers/aiograpi-product.js';
import { CHALLENGE_CODE, PASSWORD, standInAdapter } from '../../../helpers/sidecar.js';

async function setup(t: Test, timeoutMs = 5000) {
  const upstream = standInAdapter(t, { timeoutMs });
  const http = await servedOnAiograpi(t, upstream);
  const login = async (username: string) => http.request('POST', '/auth/login', { form: { username, password: PASSWORD } });
  const session = async (username = 'demo') => {
    const reply = await login(username);
    t.equal(reply.status, 200, `${username} logs in`);
    return { 'X-Session-ID': (reply.body as { session_id?: string }).session_id ?? (reply.body as string) };
  };
  return { http, upstream, login, session };
}

t.test('results and errors through the routes', async (t) => {
  const { http, session } = await setup(t);
  const headers = await session();
  const user = await http.request('GET', '/user', { query: { user_id: '5000000001' }, headers });
  t.equal(user.status, 200);
  t.match(user.body, { pk: '5000000001', username: 'demo', follower_count: 5 });
  const page = await http.request('GET', '/user/followers', { query: { user_id: '5000000001', amount: 2 }, headers });
  t.match(page, { status: 200, body: { items: [{ pk: '5000000101' }, { pk: '5000000102' }], next_cursor: '2' } });
  const missing = await http.request('GET', '/user', { query: { user_id: '42' }, headers });
  t.match(missing, { status: 404, body: { exc_type: 'UserNotFound', detail: 'User not found' } });
  const unknown = await http.request('POST', '/auth/login', { form: { username: 'nobody', password: PASSWORD } });
  t.match(unknown, { status: 401, body: { exc_type: 'UnknownError', hint: /Check the username/ } });
  const twoFactor = await http.request('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD } });
  t.match(twoFactor, { status: 401, body: { exc_type: 'TwoFactorRequired' } });
  const throttled = await session('demo_throttled');
  const slow = await http.request('GET', '/user', { query: { user_id: '5000000001' }, headers: throttled });
  t.match(slow, { status: 429, body: { exc_type: 'PleaseWaitFewMinutes' } });
});

t.test('a challenge is a 403 with last_json; POST /auth/challenge/resolve answers it', async (t) => {
  const { http, login } = await setup(t);
  const challenged = await login('demo_challenge');
  t.match(challenged, { status: 403, body: { exc_type: 'ChallengeRequired', last_json: { challenge: { api_path: '/challenge/5000000003/Xyz12/' } } } });
  const lastJson = JSON.stringify((challenged.body as { last_json: unknown }).last_json);
  const resolved = await http.request('POST', '/auth/challenge/resolve', { form: { last_json: lastJson, security_code: CHALLENGE_CODE } });
  t.match(resolved, { status: 200, body: true }, 'the auth.challenge plugin resolves it with the code');
  t.equal((await login('demo_challenge')).status, 200, 'the login passes once the challenge is resolved');
});

t.test('downloads stream the file the library wrote, then remove it; uploads reach it as a path', async (t) => {
  const { http, session } = await setup(t);
  const headers = await session();
  const folders = () =>
    readdirSync(tmpdir(), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  const before = new Set(folders());
  const response = await fetch(`${http.url}/photo/download?media_pk=3001`, { headers });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^image\/jpeg/);
  t.match(Buffer.from(await response.arrayBuffer()).toString('latin1'), /stand-in jpeg 3001$/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const left = folders().filter((name) => !before.has(name) && readdirSync(join(tmpdir(), name)).some((file) => file.endsWith('_3001.jpg')));
  t.same(left, [], 'no downloaded file left behind');

  const form = new FormData();
  form.append(
    'file',
    new Blob(
      [
        Buffer.from(
          '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJ' +
            'DRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=',
          'base64',
        ),
      ],
      { type: 'image/jpeg' },
    ),
    'photo.jpg',
  );
  form.append('caption', 'from http');
  const uploaded = await fetch(`${http.url}/photo/upload`, { method: 'POST', headers, body: form });
  const body = (await uploaded.json()) as Record<string, unknown>;
  t.equal(uploaded.status, 200, JSON.stringify(body));
  t.match(body, { pk: '3100', caption_text: 'from http' });
});

t.test('a slow call is a 504; a killed sidecar is a 503, then the next request works', async (t) => {
  const { http, session, upstream } = await setup(t, 1000);
  const headers = await session();
  const slow = await http.request('GET', '/user', { query: { user_id: 'hang' }, headers });
  t.match(slow, { status: 504, body: { exc_type: 'SidecarTimeout', detail: 'upstream call user_info_by_username timed out after 1000 ms' } });
  const pending = http.request('GET', '/user', { query: { user_id: 'hang' }, headers });
  setTimeout(() => process.kill(upstream.pids()[0]!, 'SIGKILL'), 200);
  const killed = await pending;
  t.match(killed, { status: 503, body: { exc_type: 'SidecarUnavailable', detail: /exited with signal SIGKILL while user_info_by_username was running/ } });
  t.ok(killed.headers.get('retry-after'), 'Retry-After on the 503');
  const after = await http.request('GET', '/user', { query: { user_id: '5000000002' }, headers });
  t.match(after, { status: 200, body: { pk: '5000000002' } }, 'the session is reopened on the new sidecar, still logged in');
});

t.test('sessions run concurrently, each one call at a time', async (t) => {
  const { http, session } = await setup(t);
  const [a, b] = [await session(), await session()];
  const slow = (headers: Record<string, string>) => http.request('GET', '/user', { query: { user_id: 'slow-400' }, headers });
  let start = performance.now();
  const apart = await Promise.all([slow(a), slow(b)]);
  const apartMs = performance.now() - start;
  t.same(
    apart.map((r) => r.status),
    [200, 200],
  );
  t.ok(apartMs < 750, `two sessions together (${apartMs.toFixed(0)} ms)`);
  start = performance.now();
  await Promise.all([slow(a), slow(a)]);
  const sameMs = performance.now() - start;
  t.ok(sameMs >= 790, `one session in turn (${sameMs.toFixed(0)} ms)`);
});

t.test('/deps and /build report the library version on the first call, before any sidecar has started', async (t) => {
  const fresh = await setup(t);
  t.same(fresh.upstream.pids(), [undefined], 'no sidecar yet');
  t.match(await fresh.http.request('GET', '/deps'), { status: 200, body: { aiograpi: '1.0.9', node: process.versions.node } });
  const other = await setup(t);
  const build = await other.http.request('GET', '/build');
  t.match(build, { status: 200, body: { upstream_adapter: 'aiograpi', upstream_library: 'aiograpi', upstream_version: '1.0.9', upstream_emulated: false } });
  const ready = await other.http.request('GET', '/ready');
  t.match(ready, { status: 200, body: { checks: { upstream: { ok: true, adapter: 'aiograpi', detail: /^aiograpi 1\.0\.9/ } } } });
});

t.test('the sandbox says it emulates aiograpi 1.0.9, and lists no aiograpi among the dependencies', async (t) => {
  const http = await serve(await composeApp(testConfig()));
  t.teardown(() => http.close());
  const build = await http.request('GET', '/build');
  t.match(build, { status: 200, body: { upstream_adapter: 'sandbox', upstream_library: 'aiograpi', upstream_version: '1.0.9', upstream_emulated: true } });
  const deps = (await http.request('GET', '/deps')).body as Record<string, string>;
  t.equal(deps.aiograpi, undefined, 'the emulated library is not installed');
  t.equal(deps.sandbox, undefined, 'nor is there a "sandbox" package');
  t.match(deps, { node: /^\d+\.\d+\.\d+/ });
});
