// A burst larger than one page between two checks is delivered whole. 15
// messages in one thread and 25 message requests come between two checks; the next check reads
// the inbox and the pending inbox back to its watermark and emits every one, each once; `emitted`
// counts distinct events, and a request carries its first message. A bound that cuts a read
// short is counted, never silent.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import type { WorkEvent } from '../../../engine/types.js';
import { eventsModule } from '../../../plugins/events/module.js';
import { sessionRef } from '../../../adapters/events/ids.js';
import { requestEvents } from '../../../adapters/events/sources.js';
import { serve, stringBody } from '../../helpers/http.js';
import { poll } from '../../helpers/poll.js';

type Watch = { watching: boolean; checks: number; emitted: number; truncated: number };

async function setUp(extra: Record<string, string> = {}) {
  const app = await composeApp(testConfig({ extra: { WATCH_FLOOR_SECONDS: '0.05', ...extra } }));
  const http = await serve(app);
  t.teardown(() => http.close());
  const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } }));
  const as = { 'x-session-id': session };
  const watch = async () => (await http.request('GET', '/events/watch', { headers: as })).body as Watch;
  const events = async (): Promise<WorkEvent[]> => (await app.partsOf(eventsModule)!.outbox.read(sessionRef(session), 0, 10_000)).map((e) => e.value);
  const happen = async (form: Record<string, string>) => {
    const reply = await http.request('POST', '/sandbox/activity', { form, headers: as });
    if (reply.status !== 200) throw new Error(`activity: ${reply.status} ${reply.text}`);
  };
  /** Starts watching every 2 s and waits for the first check (the world's history is older than the watch). */
  const started = async () => {
    t.equal((await http.request('POST', '/events/watch', { form: { interval_seconds: '2' }, headers: as })).status, 200);
    return poll('the first check', watch, (w) => w.checks >= 1, 10_000);
  };
  /** 15 messages from one user (one thread) and 25 requests (25 new pending threads), at once. */
  const burst = async () => {
    for (let i = 1; i <= 15; i++) await happen({ kind: 'message', from: '5000000002', text: `burst message ${i}` });
    await Promise.all(Array.from({ length: 25 }, (_, i) => happen({ kind: 'request', text: `request ${i + 1}` })));
  };
  return { app, watch, events, started, burst };
}

t.test('15 messages in a thread and 25 requests between two checks are all delivered', async (t) => {
  const { watch, events, started, burst } = await setUp();
  const first = await started();
  await burst();
  t.equal((await watch()).checks, first.checks, 'the burst came between two checks');
  const after = await poll('the next check', watch, (w) => w.checks >= first.checks + 1, 15_000);
  const all = await events();
  const texts = (type: string) =>
    all
      .filter((e) => e.type === type)
      .map((e) => String(e.data.text))
      .sort();
  t.same(texts('direct.message.created'), Array.from({ length: 15 }, (_, i) => `burst message ${i + 1}`).sort(), 'every message, once');
  t.same(texts('direct.request.created'), Array.from({ length: 25 }, (_, i) => `request ${i + 1}`).sort(), 'every request, once');
  t.equal(new Set(all.map((e) => e.id)).size, all.length, 'no event twice in the log');
  t.equal(after.emitted, all.length, `emitted counts distinct events (${after.emitted}), not items seen again`);
  t.equal(after.truncated, 0, 'no read was cut short');
});

t.test('a bound that cuts the read short is counted, not silent', async (t) => {
  const { app, watch, started, burst } = await setUp({ WATCH_PAGES: '1', WATCH_THREAD_MESSAGES: '10' });
  const first = await started();
  await burst();
  const after = await poll('the next check', watch, (w) => w.checks >= first.checks + 1, 15_000);
  t.ok(after.truncated >= 1, `the watcher state says so (${after.truncated})`);
  const metrics = app.metrics.registry.metrics();
  t.match(await metrics, /socialgate_watch_truncated_total\{kind="direct.request.created"\} [1-9]/);
  t.match(await metrics, /socialgate_watch_truncated_total\{kind="direct.message.created"\} [1-9]/);
});

t.test("a request event carries the request's first message, not its newest", async (t) => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const thread = {
    id: 't1',
    last_activity_at: at(30),
    users: [{ pk: '9', username: 'stranger' }],
    messages: [
      { text: 'and again', timestamp: at(30) },
      { text: 'hello?', timestamp: at(20) },
      { text: 'hi, may I ask', timestamp: at(10) },
    ],
  };
  const { events } = requestEvents([thread], { pk: '1', username: 'demo' }, 'ref', Date.parse(at(0)));
  t.match(events[0]?.data, { text: 'hi, may I ask', from: [{ pk: '9' }] });
});
