// Two instances sharing Redis, then PostgreSQL (BullMQ and the work store on the session
// store's server). Each sandbox instance has its own world, alive on a one-second clock: the same
// seed and tick make the same thing happen in both, under the same platform ids, so whichever
// instance checks the watched session finds the same events, and the receiver gets each once. The
// instance running the watcher is killed: the other takes it over within the lock time and the
// next happenings still arrive once each.
import type { Test } from 'tap';
import { onEachSharedStore } from '../../support/shared-servers.js';
import { randomBytes } from 'node:crypto';
import { startServices, type Service } from '../../support/service.js';
import { startReceiver } from '../../support/webhook-receiver.js';
import { poll } from '../../helpers/poll.js';

type Watch = { watching: boolean; instance: string | null; checks: number };

async function shared(t: Test, store: string): Promise<void> {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const env = {
    SOCIALGATE_WATCH_FLOOR_SECONDS: '0.05',
    SOCIALGATE_FETCH_ALLOW: '127.0.0.1',
    SOCIALGATE_WEBHOOK_BACKOFF_MS: '100,200,400',
    SOCIALGATE_WORK_LOCK_MS: '1500',
    SOCIALGATE_EVENTS_POLL_MS: '100',
    SOCIALGATE_SANDBOX_LIVE_SECONDS: '1',
  };
  const [a, b] = await startServices(2, { store, key: randomBytes(32).toString('hex'), env, sessionCacheTtlMs: 200 });
  t.teardown(() => Promise.all([a.dispose(), b.dispose()]));
  const session = (await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const as = { 'x-session-id': session };
  const hook = await a.request('POST', '/webhooks', { form: { url: receiver.url } });
  t.equal(hook.status, 200, hook.text);
  receiver.secret = (hook.body as { secret: string }).secret;
  t.equal((await b.request('GET', '/webhooks')).text.includes((hook.body as { id: string }).id), true, 'the endpoint is shared');
  t.equal((await a.request('POST', '/events/watch', { form: { interval_seconds: '0.3' }, headers: as })).status, 200);
  for (const on of [a, b]) t.equal((await on.request('GET', '/account', { headers: as })).status, 200, 'the account is in use in both worlds');
  const distinct = () => new Set(receiver.deliveries.map((d) => d.id));
  await receiver.waitFor('three happenings', () => distinct().size >= 3, 20_000);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // more checks, on either instance
  t.equal(receiver.deliveries.length, distinct().size, `each of ${distinct().size} events delivered once across both instances`);
  t.same(receiver.rejected, []);

  const watch = async (on: Service) => (await on.request('GET', '/events/watch', { headers: as })).body as Watch;
  const runner = (await watch(a)).instance;
  t.ok(runner, `the watcher runs on one instance (${runner})`);
  const [victim, survivor] = runner?.endsWith(`:${a.pid()}`) ? [a, b] : [b, a];
  t.ok(runner?.endsWith(`:${victim.pid()}`), 'one of the two runs it');
  await victim.kill();
  const taken = await poll(
    'the watcher, taken over',
    () => watch(survivor),
    (w) => w.instance !== null && w.instance !== runner,
    30_000,
  );
  t.not(taken.instance, runner, `handed over to ${taken.instance}`);
  const before = distinct().size;
  await receiver.waitFor('two happenings after the handover', () => distinct().size >= before + 2, 20_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.equal(receiver.deliveries.length, distinct().size, `still each once (${distinct().size} events)`);
}

onEachSharedStore('two instances', (t, server) => shared(t, server.url));
