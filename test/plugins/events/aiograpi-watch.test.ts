// Events on the aiograpi adapter with the stand-in package: a watcher polls the inbox, the pending
// inbox and the activity inbox with the manifest's arguments, and a message that comes in becomes
// one event. On 1.12 (which has the realtime client) the stream is chosen: a message rings it and
// its event comes at once, long before the next scheduled check; when the stream dies it is
// reconnected, and the reconnection is followed by a poll that catches what came meanwhile.
import t, { type Test } from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import type { WorkEvent } from '../../../engine/types.js';
import { eventsModule } from '../../../plugins/events/module.js';
import { sessionRef } from '../../../adapters/events/ids.js';
import { serve } from '../../helpers/http.js';
import { PASSWORD, standInAdapter } from '../../helpers/sidecar.js';
import { probeUpstream } from '../../support/probe-upstream.js';
import { sleep } from '../../support/process.js';

const THREAD = '340282366841710300949128100000000001';
const extra = { WATCH_FLOOR_SECONDS: '0.05' };

async function setUp(t: Test, version: string, env: Record<string, string> = {}) {
  process.env.AIOGRAPI_STANDIN_VERSION = version;
  for (const [key, value] of Object.entries(env)) process.env[key] = value;
  const probe = probeUpstream(standInAdapter(t));
  const app = await composeApp(testConfig({ upstream: 'aiograpi', extra }), { upstream: probe.adapter });
  const http = await serve(app);
  t.teardown(() => http.close());
  const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } });
  t.equal(login.status, 200, login.text);
  const session = login.body as string;
  const events = async (): Promise<WorkEvent[]> => (await app.partsOf(eventsModule)!.outbox.read(sessionRef(session), 0, 1000)).map((e) => e.value);
  const answer = async (text: string) => {
    const record = (await app.services.sessions.find(session))!;
    await app.services.sessions.client(record).call('direct_answer', { thread_id: THREAD, text });
  };
  return { probe, app, http, session, events, answer, as: { 'x-session-id': session } };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}

t.test('1.0.9: polling calls the right methods with the right arguments', async (t) => {
  const { probe, http, events, answer, as } = await setUp(t, '1.0.9');
  const started = await http.request('POST', '/events/watch', { form: { interval_seconds: '0.2' }, headers: as });
  t.match(started.body, { watching: true, source: 'poll' });
  await until('two checks', () => probe.count('news_inbox_v1') >= 2);
  t.match(probe.calls.find((c) => c.method === 'direct_threads_chunk')!.kwargs, { thread_message_limit: 10 });
  t.ok(
    probe.calls.some((c) => c.method === 'direct_pending_chunk'),
    'the pending inbox, page by page',
  );
  t.match(probe.calls.find((c) => c.method === 'news_inbox_v1')!.kwargs, { mark_as_seen: false });
  t.notOk(
    probe.calls.some((c) => c.method === '(realtime)'),
    'no realtime stream: 1.0.9 has none',
  );
  t.equal((await events()).length, 0, "the thread's old message is older than the watch");
  await answer('ping');
  const [event] = await until(
    'the reply as an event',
    async () => (await events()).filter((e) => e.type === 'direct.message.created').at(0) && (await events()),
  );
  t.match(event, {
    type: 'direct.message.created',
    data: { thread_id: THREAD, text: 're: ping', sender: { pk: '5000000101', username: 'alice' }, account: { pk: '5000000001' } },
  });
  await sleep(500);
  t.equal((await events()).filter((e) => e.type === 'direct.message.created').length, 1, "once, and not the account's own message");
  const status = (await http.request('GET', '/events/watch', { headers: as })).body as { source: string };
  t.equal(status.source, 'poll');
});

t.test('1.12: realtime is chosen, rings at once, and a reconnect reconciles', async (t) => {
  const { probe, http, events, answer, as } = await setUp(t, '1.12.13', { AIOGRAPI_STANDIN_RT_DROP_AFTER: '2' });
  const started = await http.request('POST', '/events/watch', { form: { interval_seconds: '60' }, headers: as });
  t.equal(started.status, 200, started.text);
  await until('the stream', () => probe.count('(realtime)') === 1);
  const watching = await until('source realtime', async () => {
    const body = (await http.request('GET', '/events/watch', { headers: as })).body as { source: string };
    return body.source === 'realtime' && body;
  });
  t.ok(watching, 'GET /events/watch says realtime');
  const polls = () => probe.count('direct_threads_chunk');
  await until('the reconcile poll after connecting', () => polls() >= 2);

  const before = Date.now();
  await answer('first');
  await until('the first reply', async () => (await events()).some((e) => e.data.text === 're: first'), 3000);
  t.ok(Date.now() - before < 3000, `the ring brought it in ${Date.now() - before} ms (the next scheduled check is a minute away)`);

  await answer('second'); // the stand-in's stream dies after its second packet
  await until('the second reply', async () => (await events()).some((e) => e.data.text === 're: second'), 3000);
  await sleep(300);
  const polled = polls();
  await answer('third'); // while the stream is down: nothing rings
  await sleep(500);
  t.notOk(
    (await events()).some((e) => e.data.text === 're: third'),
    'not seen while the stream is down',
  );
  t.equal(polls(), polled, 'and no poll meanwhile');
  await until('the reconnection', () => probe.count('(realtime)') === 2, 15_000);
  await until('the third reply, by the reconciling poll', async () => (await events()).some((e) => e.data.text === 're: third'), 5000);
  const replies = (await events()).filter((e) => e.type === 'direct.message.created').map((e) => e.data.text);
  t.same(replies, ['re: first', 're: second', 're: third'], 'each once, in order');
});
