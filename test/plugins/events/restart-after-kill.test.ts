// Kill -9 of the service (SQLite default, in process) with webhook deliveries pending
// (the receiver is down) and a session watched: after the restart every event is delivered once,
// the watch is still there and keeps working, and nothing is emitted twice.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { startServices } from '../../support/service.js';
import { startReceiver } from '../../support/webhook-receiver.js';
import { poll } from '../../helpers/poll.js';

t.test('kill -9 with deliveries and a watch pending', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  receiver.mode = 503;
  // Many short retries: each event is still pending at the kill however slow the machine (with one
  // retry, the first event could spend both attempts before the third had failed once).
  const backoff = Array.from({ length: 60 }, () => '250').join(',');
  const env = {
    SOCIALGATE_WATCH_FLOOR_SECONDS: '0.05',
    SOCIALGATE_FETCH_ALLOW: '127.0.0.1',
    SOCIALGATE_WEBHOOK_BACKOFF_MS: backoff,
    SOCIALGATE_EVENTS_POLL_MS: '100',
  };
  const [a] = await startServices(1, { key: randomBytes(32).toString('hex'), env });
  t.teardown(() => a.dispose());
  const session = (await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const as = { 'x-session-id': session };
  const hook = (await a.request('POST', '/webhooks', { form: { url: receiver.url } })).body as { id: string; secret: string };
  receiver.secret = hook.secret;
  t.equal((await a.request('POST', '/events/watch', { form: { interval_seconds: '0.3' }, headers: as })).status, 200);
  for (const text of ['first', 'second', 'third'])
    await a.request('POST', '/sandbox/activity', { form: { kind: 'message', from: '5000000002', text }, headers: as });
  type Attempt = { event_id: string; outcome: string };
  await poll(
    'three events failing at the receiver',
    async () => (await a.request('GET', `/webhooks/deliveries?id=${hook.id}&limit=1000`)).body as Attempt[],
    (log) => new Set(log.filter((x) => x.outcome === 'retry').map((x) => x.event_id)).size >= 3,
    20_000,
  );
  await a.kill();
  receiver.mode = 200;
  await a.start();
  await receiver.waitFor(
    'the three events after the restart',
    (d) => ['first', 'second', 'third'].every((text) => d.some((x) => x.data.text === text)),
    30_000,
  );
  const watch = await poll(
    'the watch after the restart',
    async () => (await a.request('GET', '/events/watch', { headers: as })).body as { watching: boolean; checks: number; instance: string },
    (w) => w.watching && w.instance === `${w.instance.split(':')[0]}:${a.pid()}`,
    20_000,
  );
  t.ok(watch.watching, 'the watch survived the restart and runs in the new process');
  await a.request('POST', '/sandbox/activity', { form: { kind: 'message', from: '5000000002', text: 'after the restart' }, headers: as });
  await receiver.waitFor('a new event', (d) => d.some((x) => x.data.text === 'after the restart'), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const counts = new Map<string, number>();
  for (const d of receiver.deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
  t.equal(counts.size, 4, 'four events');
  t.same([...counts.values()], [1, 1, 1, 1], 'each delivered once');
  t.same(receiver.rejected, []);
});
