// Events on the sandbox, in process. A watched session's inbox, requests and activity
// become events; a receiver on loopback checks every webhook with the `standardwebhooks` package
// and gets each event once (by webhook-id), also across a time it was down; the delivery log,
// replay, secret rotation and 410; SSE with Last-Event-ID and two listeners; a throttled session's
// watcher calls nothing until the governor allows; session.state.changed for throttle, challenge,
// recovery and revocation; the address guard and the interval floor.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { forUpstream } from '../../../engine/app.js';
import { testConfig } from '../../../engine/config.js';
import { UpstreamError, type Config } from '../../../engine/types.js';
import { createSandbox, PASSWORD } from '../../../adapters/upstream/sandbox/index.js';
import { serve, type Client } from '../../helpers/http.js';
import { probeUpstream } from '../../support/probe-upstream.js';
import { sleep } from '../../support/process.js';
import { poll } from '../../helpers/poll.js';
import { readSse, startReceiver, type SseFrame } from '../../support/webhook-receiver.js';

const sandbox = createSandbox({ seed: 1 });
const probe = probeUpstream(sandbox);
Object.assign(probe.adapter, { happen: sandbox.happen });
const extra = {
  WATCH_FLOOR_SECONDS: '0.05',
  WEBHOOK_BACKOFF_MS: '100,200,300',
  FETCH_ALLOW: '127.0.0.1',
  EVENTS_POLL_MS: '50',
  EVENTS_KEEPALIVE_SECONDS: '0.3',
};
const config: Partial<Config> = { throttleBackoffSeconds: 1, extra };
const app = await composeApp(testConfig(config), { upstream: probe.adapter });
const http: Client = await serve(app);
const receiver = await startReceiver();
t.teardown(async () => {
  await http.close();
  await receiver.close();
});

async function login(username: string): Promise<string> {
  const reply = await http.request('POST', '/auth/login', { form: { username, password: PASSWORD } });
  if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status} ${reply.text}`);
  return reply.body as string;
}
const as = (session: string) => ({ 'x-session-id': session });
const demo = await login('demo');

async function happen(session: string, form: Record<string, string>) {
  const reply = await http.request('POST', '/sandbox/activity', { form, headers: as(session) });
  if (reply.status !== 200) throw new Error(`activity: ${reply.status} ${reply.text}`);
  return reply.body as Record<string, unknown>;
}
const perId = () => {
  const counts = new Map<string, number>();
  for (const d of receiver.deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
  return counts;
};

const created = await http.request('POST', '/webhooks', { form: { url: receiver.url, description: 'test receiver' } });
const endpoint = created.body as { id: string; secret: string };
receiver.secret = endpoint.secret;

t.test('an endpoint is created with a whsec_ secret shown once', async (t) => {
  t.equal(created.status, 200, created.text);
  t.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  const listed = (await http.request('GET', '/webhooks')).body as Record<string, unknown>[];
  t.equal(listed.length, 1);
  t.notOk('secret' in listed[0], 'the list never shows the secret');
  t.notOk(JSON.stringify(listed).includes(endpoint.secret.slice(6)), 'nor any part of it');
});

const frames: SseFrame[] = [];
const comments: string[] = [];
const listening = new AbortController();
t.teardown(() => listening.abort());

t.test('watching starts, and every kind of sandbox activity arrives once, signed', async (t) => {
  t.equal(await readSse(`${http.url}/events`, as(demo), listening.signal, frames, comments), 200, 'SSE stream open');
  const watch = await http.request('POST', '/events/watch', { form: { interval_seconds: '0.2' }, headers: as(demo) });
  t.equal(watch.status, 200, watch.text);
  t.match(watch.body, {
    watching: true,
    source: 'poll',
    interval_seconds: 0.2,
    kinds: ['direct.message.created', 'direct.request.created', 'notification.created'],
  });
  await sleep(300); // the first check sets nothing off: the world's history is older than the watch
  t.equal(receiver.deliveries.length, 0, 'nothing from before the watch started');

  const message = await happen(demo, { kind: 'message', from: '5000000002', text: 'hello watcher' });
  await receiver.waitFor('the message', (d) => d.some((x) => x.type === 'direct.message.created'));
  const got = receiver.deliveries.find((d) => d.type === 'direct.message.created')!;
  t.match(got.data, {
    thread_id: message.thread_id,
    item_id: message.item_id,
    text: 'hello watcher',
    sender: { pk: '5000000002' },
    account: { username: 'demo' },
  });
  t.match(got.id, /^evt_direct\.message\.created_/, 'a stable id from the platform ids');

  await happen(demo, { kind: 'request' });
  await happen(demo, { kind: 'like' });
  await happen(demo, { kind: 'comment', text: 'nice one' });
  await happen(demo, { kind: 'follow', from: '5000000003' });
  await receiver.waitFor(
    'request, like, comment, follow',
    (d) => d.filter((x) => x.type === 'notification.created').length >= 3 && d.some((x) => x.type === 'direct.request.created'),
  );
  const kinds = receiver.deliveries
    .filter((d) => d.type === 'notification.created')
    .map((d) => d.data.kind)
    .sort();
  t.same(kinds, ['comment', 'follow', 'like']);
  t.match(receiver.deliveries.find((d) => d.data.kind === 'comment')!.data, { text: /nice one/ });
  await sleep(600); // three more checks: nothing is emitted twice
  t.same(
    [...perId().values()].filter((n) => n > 1),
    [],
    'each event delivered once',
  );
  t.same(receiver.rejected, [], 'every delivery verified with standardwebhooks');
  await t.resolves(async () => {
    const deadline = Date.now() + 3000;
    while (frames.length < receiver.ids().size && Date.now() < deadline) await sleep(20);
  });
  // Webhooks are delivered concurrently (the spec promises no order); the stream is in log order.
  t.same(frames.map((f) => JSON.parse(f.data!).id).sort(), receiver.deliveries.map((d) => d.id).sort(), 'the SSE listener got the same events');
  t.ok(
    frames.every((f, i) => i === 0 || Number(f.id) > Number(frames[i - 1].id)),
    'SSE ids increase',
  );
  t.ok(comments.includes('keep-alive'), 'idle stretches carry keep-alive comments');
});

t.test('SSE: a second listener resumes with Last-Event-ID', async (t) => {
  const mine: SseFrame[] = [];
  const stop = new AbortController();
  t.teardown(() => stop.abort());
  const from = frames[1];
  t.equal(await readSse(`${http.url}/events`, { ...as(demo), 'last-event-id': from.id! }, stop.signal, mine), 200);
  const wanted = frames.slice(2).map((f) => f.id);
  const deadline = Date.now() + 3000;
  while (mine.length < wanted.length && Date.now() < deadline) await sleep(20);
  t.same(
    mine.map((f) => f.id),
    wanted,
    'exactly what came after it',
  );
  const before = frames.length;
  await happen(demo, { kind: 'message', from: '5000000002', text: 'to both' });
  const later = Date.now() + 5000;
  while ((frames.length === before || mine.length === wanted.length) && Date.now() < later) await sleep(20);
  t.equal(frames.at(-1)!.id, mine.at(-1)!.id, 'both listeners got the new event');
  const bad = await http.request('GET', '/events', { headers: { ...as(demo), 'last-event-id': 'yesterday' } });
  t.equal(bad.status, 422);
  t.match(bad.body, { exc_type: 'ValidationError', errors: [{ param: 'Last-Event-ID' }] });
});

t.test('a receiver that is down gets the event once it is back, once', async (t) => {
  receiver.mode = 503;
  await happen(demo, { kind: 'message', from: '5000000002', text: 'while down' });
  const attempts = async () =>
    (await http.request('GET', '/webhooks/deliveries', { query: { id: endpoint.id, limit: '1000' } })).body as {
      outcome: string;
      event_id: string;
      status: number;
      seq: number;
    }[];
  // Down until this event was refused (not an earlier test's event still on its way): the watch
  // emits it at its next check, which can come after a short outage.
  const refusedOnce = () => receiver.refused.find((r) => r.data.text === 'while down');
  for (let i = 0; i < 300 && !refusedOnce(); i++) await sleep(20);
  const downId = refusedOnce()?.id;
  let log = await attempts();
  for (let i = 0; i < 100 && !log.some((a) => a.outcome === 'retry' && a.event_id === downId); i++) log = (await sleep(30), await attempts());
  t.ok(
    log.some((a) => a.outcome === 'retry' && a.status === 503 && a.event_id === downId),
    `a failed attempt of the event is logged (${downId})`,
  );
  receiver.mode = 'refuse';
  await sleep(250);
  receiver.mode = 200;
  await receiver.waitFor('the event after the outage', (d) => d.some((x) => x.data.text === 'while down'));
  await sleep(500);
  t.equal(receiver.deliveries.filter((d) => d.data.text === 'while down').length, 1, 'delivered once');
  log = await attempts();
  const id = receiver.deliveries.find((d) => d.data.text === 'while down')!.id;
  t.ok(log.filter((a) => a.event_id === id).length >= 2, 'its attempts are in the delivery log', {
    diag: { id, log: log.filter((a) => a.event_id === id || a.outcome !== 'delivered') },
  } as object);
  t.match(
    log.find((a) => a.event_id === id && a.outcome === 'delivered'),
    { status: 204 },
  );
});

t.test('429 with Retry-After is tried again then, without spending an attempt', async (t) => {
  receiver.mode = 429;
  receiver.retryAfter = 1;
  await happen(demo, { kind: 'message', from: '5000000002', text: 'slow down' });
  const attempts = async () =>
    (await http.request('GET', '/webhooks/deliveries', { query: { id: endpoint.id, limit: '1000' } })).body as {
      outcome: string;
      status: number;
      attempt: number;
      at: string;
    }[];
  const log = await poll('a deferred attempt in the delivery log', attempts, (entries) => entries.some((a) => a.outcome === 'deferred'), 10_000, 20);
  const deferred = log.find((a) => a.outcome === 'deferred' && a.status === 429)!;
  t.ok(deferred, 'logged as deferred');
  receiver.mode = 200;
  receiver.retryAfter = undefined;
  await receiver.waitFor('the deferred event', (d) => d.some((x) => x.data.text === 'slow down'), 5000);
  // the receiver has the event before the service has logged its answer: wait for the log too
  const after = (entries: Awaited<ReturnType<typeof attempts>>) => entries.find((a) => a.outcome === 'delivered' && Date.parse(a.at) > Date.parse(deferred.at));
  const delivered = after(await poll('the delivered attempt in the delivery log', attempts, (entries) => after(entries) !== undefined, 10_000, 20))!;
  t.ok(Date.parse(delivered.at) - Date.parse(deferred.at) >= 900, `sent again after Retry-After (${Date.parse(delivered.at) - Date.parse(deferred.at)} ms)`);
  t.equal(delivered.attempt, deferred.attempt, 'the same attempt number: a deferral is not a failure');
});

t.test('replay sends an event again with the same webhook-id', async (t) => {
  const id = receiver.deliveries[0].id;
  const reply = await http.request('POST', '/webhooks/replay', { form: { id: endpoint.id, event_id: id } });
  t.equal(reply.status, 200, reply.text);
  await receiver.waitFor('the replay', () => perId().get(id) === 2);
  const missing = await http.request('POST', '/webhooks/replay', { form: { id: endpoint.id, event_id: 'evt_nothing' } });
  t.match(missing, { status: 404, body: { exc_type: 'EventNotFound' } });
});

t.test('rotation: both secrets sign for a while, the new one verifies', async (t) => {
  const reply = await http.request('POST', '/webhooks/rotate', { form: { id: endpoint.id } });
  const rotated = reply.body as { secret: string; rotating_until: string };
  t.not(rotated.secret, endpoint.secret);
  receiver.secret = rotated.secret; // only the new secret: the old signature must not be what verifies
  await happen(demo, { kind: 'message', from: '5000000002', text: 'after rotation' });
  await receiver.waitFor('the rotated delivery', (d) => d.some((x) => x.data.text === 'after rotation'));
  t.equal(receiver.deliveries.find((d) => d.data.text === 'after rotation')!.signatures, 2, 'signed with the new and the old secret');
  t.same(receiver.rejected, []);
});

t.test('410 disables the endpoint; enable turns it on again', async (t) => {
  receiver.mode = 410;
  await happen(demo, { kind: 'message', from: '5000000002', text: 'gone' });
  let listed: { disabled: string | null }[] = [];
  for (let i = 0; i < 200; i++) {
    listed = (await http.request('GET', '/webhooks')).body as { disabled: string | null }[];
    if (listed[0].disabled) break;
    await sleep(20);
  }
  t.match(listed[0].disabled, /410/);
  receiver.mode = 200;
  const enabled = await http.request('POST', '/webhooks/enable', { form: { id: endpoint.id } });
  t.match(enabled.body, { disabled: null });
});

t.test("job events reach the webhook and the session's stream (issue 12, point 6)", async (t) => {
  const started = await http.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: '5000000001' }), limit: '5' },
    headers: as(demo),
  });
  t.equal(started.status, 202, started.text);
  const id = (started.body as { id: string }).id;
  await receiver.waitFor('job.completed', (d) => d.some((x) => x.type === 'job.completed' && x.data.job_id === id));
  t.match(receiver.deliveries.find((x) => x.data.job_id === id)!.data, { route: 'GET /user/followers', items: 5, account: { username: 'demo' } });
  const deadline = Date.now() + 3000;
  while (!frames.some((f) => f.event === 'job.completed') && Date.now() < deadline) await sleep(20);
  t.ok(
    frames.some((f) => f.event === 'job.completed' && JSON.parse(f.data!).data.job_id === id),
    "on the SSE stream of the job's session",
  );
});

t.test('the watcher: its state, and paused without calling while throttled', async (t) => {
  const status = (await http.request('GET', '/events/watch', { headers: as(demo) })).body as Record<string, unknown>;
  t.match(status, { watching: true, paused: null, last_error: null });
  t.ok((status.checks as number) > 3 && (status.emitted as number) >= 6, `checks ${status.checks}, emitted ${status.emitted}`);
  t.type(status.lag_seconds, 'number');

  const record = (await app.services.sessions.find(demo))!;
  const until = Date.now() + 1200;
  const before = probe.count('direct_threads_chunk');
  await app.services.sessions.update(record, { state: 'throttled', throttledUntil: until }, 'PleaseWaitFewMinutes');
  await receiver.waitFor('session.state.changed to throttled', (d) => d.some((x) => x.type === 'session.state.changed' && x.data.to === 'throttled'));
  await sleep(400);
  const paused = (await http.request('GET', '/events/watch', { headers: as(demo) })).body as { paused: { reason: string } | null };
  t.match(paused.paused, { reason: 'throttled' });
  const during = probe.count('direct_threads_chunk') - before;
  t.ok(during <= 1, `no platform call while throttled (${during}, at most the check already under way)`);
  await sleep(until - Date.now() - 100);
  t.equal(probe.count('direct_threads_chunk') - before, during, 'still none just before the governor allows');
  await receiver.waitFor('back to active', (d) => d.some((x) => x.type === 'session.state.changed' && x.data.to === 'active'), 5000);
  t.ok(probe.count('direct_threads_chunk') > before + during, 'checks resumed after the back-off');
  const change = receiver.deliveries.find((x) => x.type === 'session.state.changed' && x.data.to === 'throttled')!;
  t.match(change.data, {
    from: 'active',
    to: 'throttled',
    reason: 'PleaseWaitFewMinutes',
    account: { username: 'demo' },
    throttled_until: new Date(until).toISOString(),
  });
  t.match(receiver.deliveries.find((x) => x.type === 'session.state.changed' && x.data.to === 'active')!.data, { reason: 'call_succeeded' });
});

t.test('a challenge met by a check pauses the watcher and is emitted', async (t) => {
  probe.failNext('direct_threads_chunk', new UpstreamError('ChallengeRequired', 'challenge_required', { bases: ['ChallengeError'] }));
  await receiver.waitFor('challenge', (d) => d.some((x) => x.type === 'session.state.changed' && x.data.to === 'challenge'));
  t.match(receiver.deliveries.find((x) => x.data.to === 'challenge')!.data, { from: 'active', reason: 'ChallengeRequired' });
  await sleep(100);
  const status = (await http.request('GET', '/events/watch', { headers: as(demo) })).body as { paused: { reason: string } | null };
  t.match(status.paused, { reason: 'challenge' });
  const record = (await app.services.sessions.find(demo))!;
  await app.services.sessions.update(record, { state: 'active' }, 'challenge_resolved');
});

t.test('revoking a session emits logged_out and ends its watcher', async (t) => {
  const other = (await login('demo_2fa').catch(() => undefined)) ?? demo;
  t.ok(other);
  const second = await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } });
  const id = second.body as string;
  t.equal((await http.request('POST', '/events/watch', { form: { interval_seconds: '0.2' }, headers: as(id) })).status, 200);
  await app.services.sessions.revoke(id);
  await receiver.waitFor('logged out', (d) => d.some((x) => x.type === 'session.state.changed' && x.data.to === 'logged_out'));
  t.match(receiver.deliveries.find((x) => x.data.to === 'logged_out')!.data, { reason: 'revoked', from: 'active' });
  const watchers = await app.services.work!.store.list('watches');
  t.equal(watchers.length, 1, 'only the first session is still watched');
});

t.test('stopping the watch', async (t) => {
  const stopped = await http.request('DELETE', '/events/watch', { headers: as(demo) });
  t.match(stopped, { status: 200, body: { watching: false } });
  t.match(await http.request('GET', '/events/watch', { headers: as(demo) }), { status: 200, body: { watching: false } }, 'GET answers the state (issue 29)');
  t.match(await http.request('DELETE', '/events/watch', { headers: as(demo) }), { status: 404, body: { exc_type: 'WatchNotFound' } });
  const count = probe.count('direct_threads_chunk');
  await sleep(500);
  t.equal(probe.count('direct_threads_chunk'), count, 'no more checks');
});

t.test('bad input names the parameter', async (t) => {
  const floor = await http.request('POST', '/events/watch', { form: { interval_seconds: '0.01' }, headers: as(demo) });
  t.match(floor, { status: 422, body: { errors: [{ param: 'interval_seconds' }] } });
  const kind = await http.request('POST', '/events/watch', { form: { kinds: 'direct.nothing' }, headers: as(demo) });
  t.match(kind, { status: 422, body: { errors: [{ param: 'kinds' }] } });
  for (const url of ['http://10.1.2.3/hook', 'ftp://example.com/x', 'http://user:pw@127.0.0.1/x', 'not a url']) {
    const refused = await http.request('POST', '/webhooks', { form: { url } });
    t.match(refused, { status: 422, body: { exc_type: 'WebhookUrlRefused', errors: [{ param: 'url' }] } }, url);
  }
  t.match(await http.request('DELETE', '/webhooks', { query: { id: 'ep_none' } }), { status: 404, body: { exc_type: 'WebhookNotFound' } });
  const who = await http.request('POST', '/sandbox/activity', { form: { kind: 'message', from: 'nobody_here_at_all' }, headers: as(demo) });
  t.match(who, { status: 422, body: { errors: [{ param: 'from' }] } });
});

t.test('the sandbox route exists on the sandbox only', async (t) => {
  const onAiograpi = forUpstream(app.manifest, 'aiograpi');
  t.notOk(onAiograpi.routes.some((r) => r.key === 'POST /sandbox/activity'));
  t.ok(app.manifest.routes.some((r) => r.key === 'POST /sandbox/activity'));
  const doc = JSON.parse(app.services.app.openapi().text) as { paths: Record<string, unknown> };
  t.ok(doc.paths['/sandbox/activity'], 'documented on the sandbox');
});

t.test('metrics count events, deliveries and watchers', async (t) => {
  const text = (await http.request('GET', '/metrics')).text;
  t.match(text, /socialgate_events_total\{type="direct.message.created"\} \d+/);
  t.match(text, /socialgate_webhook_deliveries_total\{outcome="delivered"\} \d+/);
  t.match(text, /socialgate_webhook_deliveries_total\{outcome="retry"\} \d+/);
  t.match(text, /socialgate_webhook_delivery_seconds_bucket/);
  t.match(text, /socialgate_watched_sessions\{state="running"\} 0/);
  t.match(text, /socialgate_watch_checks_total\{outcome="paused"\} \d+/);
  t.notOk(text.includes(endpoint.secret.slice(6, 20)), 'no secret in the metrics');
});
