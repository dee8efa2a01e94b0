// `publish_at` keeps a write (a photo with its file, a direct message) and runs it
// at its time through the background layer, once; a cancelled one never runs; a restart in between
// (a second app over the same SQLite data folder) runs it once all the same; bad times are a 422
// naming publish_at. Point 6: each outcome is a write.completed event with the idempotency key.
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApp } from '../../../bin/compose.js';
import type { App } from '../../../engine/app.js';
import { testConfig } from '../../../engine/config.js';
import type { WorkEvent } from '../../../engine/types.js';
import { PASSWORD, sandboxFileBytes } from '../../../adapters/upstream/sandbox/index.js';
import { serve, stringBody, type Client } from '../../helpers/http.js';
import { count, countedUpstream } from '../../helpers/counted-upstream.js';
import { recordEvents, settled } from '../../helpers/writes.js';

const dir = mkdtempSync(join(tmpdir(), 'socialgate-sched-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const config = testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir, sessionCacheTtlMs: 0, extra: { SCHEDULE_MAX_AHEAD_DAYS: '30' } });
const calls: string[] = [];
const events: WorkEvent[] = [];

let app: App;
async function start(): Promise<Client> {
  app = await composeApp(config, { upstream: countedUpstream(undefined, calls).upstream });
  recordEvents(app, events);
  return serve(app);
}

let http = await start();
const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } }));
const as = { 'x-session-id': session };
const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();

function photo(publishAt: string, caption = 'Scheduled #later'): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(sandboxFileBytes('jpeg', 'upload'))], { type: 'image/jpeg' }), 'photo.jpg');
  form.append('caption', caption);
  form.append('publish_at', publishAt);
  return form;
}
const kept = () => (existsSync(join(dir, 'scheduled-writes')) ? readdirSync(join(dir, 'scheduled-writes')) : []);

t.test('publish_at that is past, unparsable or too far ahead is a 422 naming it, and nothing is kept', async (t) => {
  for (const [given, problem] of [
    [ahead(-60_000), /not in the future/],
    ['tomorrow at noon', /./],
    ['2026-12-24T18:00:00', /./],
    [ahead(40 * 86_400_000), /30 days ahead/],
  ] as const) {
    const reply = await http.request('POST', '/direct/message', { form: { text: 'hi', user_ids: '5000000100', publish_at: given }, headers: as });
    t.match(reply, { status: 422, body: { errors: [{ param: 'publish_at', problem }] } }, given);
  }
  t.equal((await http.request('GET', '/writes/scheduled', { headers: as })).text, '[]');
  t.equal(count(calls, 'direct_send'), 0);
});

t.test('a scheduled photo and message run at their time, once, with their events', async (t) => {
  const reply = await http.request('POST', '/photo/upload', { body: photo(ahead(1500)), headers: { ...as, 'idempotency-key': 'photo-1' } });
  t.equal(reply.status, 202, reply.text.slice(0, 300));
  const item = reply.body as Record<string, unknown>;
  t.match(item, {
    kind: 'scheduled',
    route: 'POST /photo/upload',
    state: 'scheduled',
    idempotency_key: 'photo-1',
    params: { caption: 'Scheduled #later' },
    files: [{ field: 'file', name: 'photo.jpg' }],
  });
  t.notOk('session' in item || 'owner' in item, 'the sealed session and the owner are not shown');
  const message = await http.request('POST', '/direct/message', { form: { text: 'later', user_ids: '5000000100', publish_at: ahead(1000) }, headers: as });
  t.equal(message.status, 202, message.text);
  t.same(kept(), [item.id], 'the photo is kept in the data folder');
  t.equal(count(calls, 'photo_upload') + count(calls, 'direct_send'), 0, 'nothing is sent before its time');
  const listed = (await http.request('GET', '/writes/scheduled', { headers: as })).body as { id: string }[];
  t.same(listed.map((w) => w.id).sort(), [item.id, (message.body as { id: string }).id].sort());

  const done = await settled(http, as, String(item.id));
  t.match(done, { state: 'completed', result: { media_type: 1, caption_text: 'Scheduled #later' } });
  t.ok(Date.parse(String(done.finished_at)) >= Date.parse(String(item.run_at)), 'not before its time');
  t.match(await settled(http, as, String((message.body as { id: string }).id)), { state: 'completed', result: { text: 'later' } });
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(count(calls, 'photo_upload'), 1, 'published once');
  t.equal(count(calls, 'direct_send'), 1, 'sent once');
  t.same(kept(), [], 'the kept file is removed once it ran');
  const completed = events.filter((e) => e.type === 'write.completed' && e.data.write_id === item.id);
  t.equal(completed.length, 1);
  t.match(completed[0], {
    session: String(item.session_ref),
    data: { idempotency_key: 'photo-1', route: 'POST /photo/upload', status: 200, result: { caption_text: 'Scheduled #later' } },
  });
  const types = ((await http.request('GET', '/events/types')).body as { type: string }[]).map((one) => one.type);
  t.ok(types.includes('write.completed') && types.includes('write.failed'), 'the event types are declared');
});

t.test('a cancelled write never runs', async (t) => {
  const before = count(calls, 'photo_upload');
  const item = (await http.request('POST', '/photo/upload', { body: photo(ahead(800)), headers: as })).body as { id: string };
  const cancelled = await http.request('DELETE', '/writes/scheduled', { query: { id: item.id }, headers: as });
  t.match(cancelled, { status: 200, body: { id: item.id, state: 'cancelled' } });
  t.same(kept(), [], 'its file is removed');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.equal(count(calls, 'photo_upload'), before, 'never published');
  t.match((await http.request('GET', '/writes/scheduled/item', { query: { id: item.id }, headers: as })).body, { state: 'cancelled' });
  t.match(await http.request('GET', '/writes/scheduled/item', { query: { id: 'no-such-write-id' }, headers: as }), {
    status: 404,
    body: { exc_type: 'ResourceNotFound' },
  });
});

t.test('a restart between the request and its time: the next instance publishes it, once', async (t) => {
  const before = count(calls, 'photo_upload');
  const item = (await http.request('POST', '/photo/upload', { body: photo(ahead(1500), 'Across a restart'), headers: as })).body as { id: string };
  await http.close();
  http = await start();
  const done = await settled(http, as, item.id);
  t.match(done, { state: 'completed', result: { caption_text: 'Across a restart' } });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(count(calls, 'photo_upload'), before + 1, 'published once');
});

t.test('the guards sit in the product in order: idempotency, deferral, scheduling, freeze, budgets', async (t) => {
  t.same(
    app.guards.map((guard) => guard.name),
    ['idempotency', 'writes.defer', 'writes.schedule', 'freeze', 'policy'],
  );
});

t.teardown(() => http.close());
