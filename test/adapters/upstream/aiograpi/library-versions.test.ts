// The aiograpi library versions through HTTP with the stand-in playing aiograpi 1.0.9 and 1.12.13: ids typed by the
// schema, the version on /deps, the native-flow hint; the uploads' 1.12 parameters (scheduling,
// co-authors, cross-posting) passed to 1.12 and refused by name, before any call, under 1.0.9 and
// on the sandbox (which plays 1.0.9).
import t, { type Test } from 'tap';
import { testConfig } from '../../../../engine/config.js';
import { serve } from '../../../helpers/http.js';
import { servedOnAiograpi } from '../../../helpers/aiograpi-product.js';
import { PASSWORD, standInAdapter } from '../../../helpers/sidecar.js';
import { probeUpstream } from '../../../support/probe-upstream.js';
import { composeApp } from '../../../../bin/compose.js';

async function setup(t: Test, version: string) {
  // The sidecar inherits the environment at spawn: the stand-in reads its version from it.
  process.env.AIOGRAPI_STANDIN_VERSION = version;
  const probe = probeUpstream(standInAdapter(t, { timeoutMs: 5000 }));
  const upstream = probe.adapter;
  const http = await servedOnAiograpi(t, upstream);
  const reply = await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } });
  delete process.env.AIOGRAPI_STANDIN_VERSION;
  const headers = { 'X-Session-ID': (reply.body as { session_id?: string }).session_id ?? (reply.body as string) };
  return { http, upstream, headers, probe };
}

for (const version of ['1.0.9', '1.12.13']) {
  t.test(`aiograpi ${version}: typed ids, version, challenge hint`, async (t) => {
    const { http, headers } = await setup(t, version);
    t.match(await http.request('GET', '/deps'), { status: 200, body: { aiograpi: version } });
    const early = await http.request('GET', '/media', { query: { pk: '12345678' }, headers });
    t.equal(early.status, 200);
    t.equal((early.body as { pk: unknown }).pk, '12345678', 'a small media pk the library hands over as a number is a string');
    t.match(early.body, { user: { pk: '5000000001' }, media_type: 1 });
    const challenged = await http.request('POST', '/auth/login', { form: { username: 'demo_challenge', password: PASSWORD } });
    t.equal(challenged.status, 403);
    const lastJson = (challenged.body as { last_json: unknown }).last_json;
    const resolve = await http.request('POST', '/auth/challenge/resolve', { form: { last_json: JSON.stringify(lastJson), security_code: '123456' } });
    if (version === '1.0.9') t.equal(resolve.status, 200, '1.0.9 takes the code for a native-flow checkpoint');
    else {
      t.equal(resolve.status, 403, '1.12 refuses codes for native-flow checkpoints');
      t.match(resolve.body, { exc_type: 'ChallengeRequired', hint: /approve it there.*retry POST \/auth\/login/ });
      t.notMatch((resolve.body as { hint: string }).hint, /security_code you received/);
    }
  });
}

const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJ' +
    'DRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=',
  'base64',
);

function upload(url: string, headers: Record<string, string>, fields: Record<string, string | string[]>) {
  const form = new FormData();
  form.append('file', new Blob([JPEG], { type: 'image/jpeg' }), 'photo.jpg');
  form.append('caption', 'scheduled');
  for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) form.append(name, one);
  return fetch(`${url}/photo/upload`, { method: 'POST', headers, body: form }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));
}

t.test('aiograpi 1.12: the uploads take scheduling and co-authors; cross-posting fails as the library does', async (t) => {
  const { http, headers, probe } = await setup(t, '1.12.13');
  const done = await upload(http.url, headers, { schedule_at: '1893456000', coauthor_user_ids: ['5000000101', '5000000002'] });
  t.equal(done.status, 200, JSON.stringify(done.body));
  t.match(probe.calls.find((c) => c.method === 'photo_upload')!.kwargs, {
    schedule_at: 1893456000,
    coauthor_user_ids: ['5000000101', '5000000002'],
    caption: 'scheduled',
  });
  t.notOk('share_to_facebook' in probe.calls.find((c) => c.method === 'photo_upload')!.kwargs, 'a parameter not given is not passed');
  const crossposted = await upload(http.url, headers, { share_to_facebook: 'true' });
  t.match(crossposted, { status: 422, body: { exc_type: 'CrosspostingDestinationError', hint: /linked/ } });
});

t.test('aiograpi 1.0.9: the 1.12 parameters are refused by name before any call', async (t) => {
  const { http, headers, probe } = await setup(t, '1.0.9');
  const before = probe.count('photo_upload');
  const refused = await upload(http.url, headers, { schedule_at: '1893456000', share_to_threads: 'true' });
  t.equal(refused.status, 422);
  t.match(refused.body, {
    exc_type: 'ValidationError',
    errors: [{ param: 'schedule_at', problem: /needs aiograpi 1\.12 or later; the running aiograpi is 1\.0\.9/ }, { param: 'share_to_threads' }],
  });
  t.equal(probe.count('photo_upload'), before, 'the library was not called');
  t.equal((await upload(http.url, headers, {})).status, 200, 'without them the upload works');
});

t.test('the sandbox plays 1.0.9: the same refusal, and the document says which version each needs', async (t) => {
  const app = await composeApp(testConfig());
  const http = await serve(app);
  t.teardown(() => http.close());
  const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
  const refused = await upload(http.url, { 'X-Session-ID': login.body as string }, { coauthor_user_ids: '5000000002' });
  t.match(refused, { status: 422, body: { errors: [{ param: 'coauthor_user_ids', problem: /needs aiograpi 1\.12/ }] } });
  type Schema = { $ref?: string; properties: Record<string, { description: string }> };
  const doc = JSON.parse(app.services.app.openapi().text) as {
    paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>;
    components: { schemas: Record<string, Schema> };
  };
  const body = Object.values(doc.paths['/photo/upload'].post.requestBody.content)[0].schema;
  const fields = (body.$ref ? doc.components.schemas[body.$ref.split('/').pop()!] : body).properties;
  t.match(fields.schedule_at.description, /aiograpi 1\.12 and later/);
});
