// Ready for aiograpi 2.x by capability, against the stand-in's 2.x profile (which
// follows the published changelog: no 2.x source exists to build against). The sidecar reads what
// the library can do from its Client; login failures carry 2.0's `caa_actions` and typed reasons into
// the body; a saved app profile 2.0 refuses is upgraded on PATCH /auth/settings; the recovery helpers
// use media_upload_status and video_refresh_resources where the library has them, and nothing else.
import t, { type Test } from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../../../engine/app.js';
import { testConfig } from '../../../../engine/config.js';
import { mapError } from '../../../../engine/errors.js';
import { createLogger } from '../../../../engine/log.js';
import { UpstreamError } from '../../../../engine/types.js';
import { createStore } from '../../../../adapters/store/keyv.js';
import { refreshedVideoUrls, uploadOutcome } from '../../../../adapters/upstream/recovery.js';
import { productParts } from '../../../../bin/compose.js';
import { serve } from '../../../helpers/http.js';
import { PASSWORD, standInAdapter } from '../../../helpers/sidecar.js';

/** The stand-in playing VERSION: the sidecar inherits the environment when it starts. */
async function sidecarAt(t: Test, version: string) {
  process.env.AIOGRAPI_STANDIN_VERSION = version;
  const adapter = standInAdapter(t, { timeoutMs: 5000 });
  const library = await adapter.describe();
  delete process.env.AIOGRAPI_STANDIN_VERSION;
  return { adapter, library };
}

async function service(t: Test) {
  const { adapter } = await sidecarAt(t, '2.0.6');
  const config = testConfig({ upstream: 'aiograpi' });
  const app = createApp({ config, upstream: adapter, store: await createStore('memory://'), ...productParts(config), log: createLogger('silent') });
  const http = await serve(app);
  t.teardown(() => http.close());
  return { app, http, adapter };
}

t.test('capabilities, not version strings: 2.x against 1.12', async (t) => {
  const modern = (await sidecarAt(t, '2.0.6')).library;
  t.match(modern, {
    version: '2.0.6',
    capabilities: {
      login_legacy: true,
      transport: 'curl_cffi',
      device_key: true,
      app_profile_upgrade: true,
      media_upload_status: true,
      video_refresh_resources: true,
    },
  });
  const older = (await sidecarAt(t, '1.12.13')).library;
  t.match(older, {
    version: '1.12.13',
    capabilities: { login_legacy: false, transport: 'httpx', device_key: true, media_upload_status: false, video_refresh_resources: false },
  });
});

t.test('login failures carry the CAA markers and the typed reason into the body', async (t) => {
  const { http } = await service(t);
  const wrong = await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'wrong' } });
  const marker = ['CAA_LOGIN_FALLBACK:fallback_triggered'];
  t.match(
    wrong,
    { status: 401, body: { exc_type: 'BadPassword', caa_actions: marker } },
    "the legacy flow's typed failure, with the marker that sent it there",
  );
  const unknown = await http.request('POST', '/auth/login', { form: { username: 'nobody_here', password: 'x' } });
  t.match(unknown.body, { exc_type: 'ClientError', caa_actions: ['CAA_LOGIN_FORM:account_list'] });
  t.match(unknown, { status: 401, body: { hint: /caa_actions names the step/ } }, 'a generic CAA failure is a 401 that points at the markers');
  t.equal((await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } })).status, 200, 'the new login works');
});

t.test('a saved app profile 2.0 refuses: a 409 that names the way out, and the upgrade on PATCH /auth/settings', async (t) => {
  const { app, http, adapter } = await service(t);
  const saved = {
    uuids: { uuid: '00000000-0000-4000-8000-0000000000aa', phone_id: '00000000-0000-4000-8000-0000000000bb' },
    authorization_data: { ds_user_id: '5000000001', sessionid: '5000000001%3AstandIn%3A1' },
    device_settings: { app_version: '269.0.0.18.75', android_version: 26, manufacturer: 'OnePlus' },
  };
  const old = await adapter.open({ settings: saved });
  const refused = await old.call('login', { username: 'demo', password: PASSWORD }).then(
    () => undefined,
    (error: unknown) => error,
  );
  await old.close();
  t.type(refused, UpstreamError);
  t.match(mapError(refused, app.manifest.errors), { status: 409, body: { hint: /PATCH \/auth\/settings and upgrade_app_profile=true/ } });

  const imported = await http.request('PATCH', '/auth/settings', { form: { settings: JSON.stringify(saved), upgrade_app_profile: 'true' } });
  t.equal(imported.status, 200, JSON.stringify(imported.body));
  const exported = await http.request('GET', '/auth/settings', { headers: { 'X-Session-ID': String(imported.body) } });
  const device = { manufacturer: 'OnePlus', bloks_versioning_id: /\S/, app_version: '410.0.0.36.71' };
  t.match(exported.body, { uuids: saved.uuids, device_settings: device }, 'the app profile is current, the device ids kept');
  const upgraded = await adapter.open({ settings: exported.body as Record<string, unknown> });
  t.equal(await upgraded.call('login', { username: 'demo', password: PASSWORD }), true, 'the upgraded profile logs in');
  await upgraded.close();
});

t.test('recovery helpers: used where the library has them, undefined elsewhere', async (t) => {
  const photo = join(mkdtempSync(join(tmpdir(), 'sg-v2-')), 'photo.jpg');
  writeFileSync(photo, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]));
  for (const version of ['2.0.6', '1.12.13']) {
    const { adapter, library } = await sidecarAt(t, version);
    const client = await adapter.open({ settings: {} });
    await client.call(version === '2.0.6' ? 'login_legacy' : 'login', { username: 'demo', password: PASSWORD });
    await client.call('photo_upload', { path: photo, caption: 'lost answer', upload_id: '17001' });
    const outcome = await uploadOutcome(library, client, '17001');
    const urls = await refreshedVideoUrls(library, client, '3001_5000000001');
    if (version === '2.0.6') {
      t.same(outcome, { state: 'completed', mediaIds: ['3100_5000000001'] }, 'a publish whose answer was lost is found');
      t.match(urls, [/^https:\/\/standin\.invalid\/v\/3001\.mp4/], 'fresh video addresses');
      t.match(await uploadOutcome(library, client, '99999'), { state: 'pending', mediaIds: [] }, 'an unknown publish is not reported done');
    } else {
      t.equal(outcome, undefined, `${version} cannot tell`);
      t.equal(urls, undefined);
    }
    await client.close();
  }
});
