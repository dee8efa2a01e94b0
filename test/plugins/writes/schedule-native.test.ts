// SOCIALGATE_SCHEDULE_NATIVE=true: where the library schedules itself (aiograpi 1.12's `schedule_at`
// on the uploads) and the account is professional, a photo sent with `publish_at` goes to the
// platform now, in one upload carrying schedule_at (`Scheduled-By: platform`); a personal account,
// or the 1.0.9 line, falls back to the service's own scheduled write (202, `Scheduled-By: service`),
// with no upload now.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { createSandbox, FIXED, PASSWORD, sandboxFileBytes } from '../../../adapters/upstream/sandbox/index.js';
import type { SandboxVersion } from '../../../adapters/upstream/sandbox/registry.js';
import { countedUpstream } from '../../helpers/counted-upstream.js';
import { serve, stringBody } from '../../helpers/http.js';

const dir = mkdtempSync(join(tmpdir(), 'socialgate-native-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** An app on a sandbox playing `version` with native scheduling on, demo logged in (professional or not). */
async function setup(t: Test, version: SandboxVersion, professional: boolean) {
  const sandbox = createSandbox({ seed: 1, version });
  sandbox.world.users.get(FIXED.demo)!.isBusiness = professional;
  const counted = countedUpstream(sandbox);
  const app = await composeApp(testConfig({ dataDir: join(dir, version), extra: { SCHEDULE_NATIVE: 'true' } }), { upstream: counted.upstream });
  const http = await serve(app);
  t.teardown(() => http.close());
  const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } }));
  const uploads = () => counted.made.filter((c) => c.method === 'photo_upload');
  return { http, as: { 'x-session-id': session }, uploads };
}

const publishAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
function photo(): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(sandboxFileBytes('jpeg', 'upload'))], { type: 'image/jpeg' }), 'photo.jpg');
  form.append('caption', 'Native #later');
  form.append('publish_at', publishAt.toISOString());
  return form;
}

t.test('1.12 and a professional account: one upload now, with schedule_at; nothing kept here', async (t) => {
  const { http, as, uploads } = await setup(t, '1.12.13', true);
  const reply = await http.request('POST', '/photo/upload', { body: photo(), headers: as });
  t.equal(reply.status, 200, reply.text.slice(0, 300));
  t.equal(reply.headers.get('scheduled-by'), 'platform', 'the answer says the platform keeps it');
  t.match(reply.body, { caption_text: 'Native #later' });
  t.equal(uploads().length, 1, 'one upstream upload at request time');
  t.match(uploads()[0].kwargs, { schedule_at: publishAt.getTime() / 1000, caption: 'Native #later' });
  t.notOk('publish_at' in uploads()[0].kwargs);
  t.equal((await http.request('GET', '/writes/scheduled', { headers: as })).text, '[]', 'no scheduled write of the service');
});

for (const [version, professional, why] of [
  ['1.12.13', false, 'a personal account'],
  ['1.0.9', true, 'the 1.0.9 line'],
] as const) {
  t.test(`${why}: the service schedules it (202), nothing uploaded now`, async (t) => {
    const { http, as, uploads } = await setup(t, version, professional);
    const reply = await http.request('POST', '/photo/upload', { body: photo(), headers: as });
    t.equal(reply.status, 202, reply.text.slice(0, 300));
    t.equal(reply.headers.get('scheduled-by'), 'service');
    t.match(reply.body, { kind: 'scheduled', state: 'scheduled', route: 'POST /photo/upload', run_at: publishAt.toISOString() });
    t.equal(uploads().length, 0, 'no upload at request time');
    const id = (reply.body as { id: string }).id;
    t.match((await http.request('DELETE', '/writes/scheduled', { form: { id }, headers: as })).body, { state: 'cancelled' });
  });
}
