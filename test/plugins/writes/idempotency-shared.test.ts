// Idempotency keys live in the shared store, so two instances on Redis, then on
// PostgreSQL, share them: a key used on one is replayed by the other with no upstream call, a
// repeat on the other while the first runs is 409, and keyed requests raced over both make one
// platform call.
import type { Test } from 'tap';
import { randomBytes, randomUUID } from 'node:crypto';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { onEachSharedStore } from '../../support/shared-servers.js';
import { serve, type Client } from '../../helpers/http.js';
import { countedUpstream } from '../../helpers/counted-upstream.js';

const media = '3955340313237098052_5000000001';

async function instances(t: Test, store: string): Promise<{ a: Client; b: Client; counted: ReturnType<typeof countedUpstream> }> {
  const counted = countedUpstream();
  const config = testConfig({ store, extra: { SESSION_KEY: randomBytes(32).toString('hex'), SANDBOX_LIVE_SECONDS: '0' } });
  const apps = [await composeApp(config, { upstream: counted.upstream }), await composeApp(config, { upstream: counted.upstream })];
  const [a, b] = await Promise.all(apps.map(serve));
  t.teardown(async () => {
    await Promise.all([a.close(), b.close()]);
    // In process, the PostgreSQL work store's close can run twice ("Called end on pool more than once"): not this test's subject.
    for (const app of apps) await app.close().catch(() => undefined);
  });
  return { a, b, counted };
}

async function shared(t: Test, store: string): Promise<void> {
  const { a, b, counted } = await instances(t, store);
  const session = (await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const comment = (on: Client, key: string, text: string) =>
    on.request('POST', '/media/comment', { form: { media_id: media, text }, headers: { 'x-session-id': session, 'idempotency-key': key } });
  const comments = () => counted.calls.filter((m) => m === 'media_comment').length;

  const key = randomUUID();
  const first = await comment(a, key, 'shared key');
  t.equal(first.status, 200, first.text);
  const before = counted.calls.length;
  const again = await comment(b, key, 'shared key');
  t.same(again.body, first.body, 'the other instance answers the same comment');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(counted.calls.length, before, 'with no upstream call');
  t.match((await comment(b, key, 'another text')).body, { exc_type: 'IdempotencyKeyReused' }, 'and knows the key names another request');

  const running = randomUUID();
  const gate = counted.hold('media_comment');
  const held = comment(a, running, 'in flight on A');
  await gate.arrived;
  const meanwhile = await comment(b, running, 'in flight on A');
  t.equal(meanwhile.status, 409, 'B sees A running it');
  gate.release();
  t.equal((await held).status, 200);

  const raced = randomUUID();
  const from = comments();
  const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => comment(i % 2 ? b : a, raced, 'raced')));
  t.equal(comments() - from, 1, 'six keyed requests over two instances: one comment call');
  t.ok(
    replies.every((r) => r.status === 200 || r.status === 409),
    `each answered or was told to wait: ${replies.map((r) => r.status)}`,
  );
}

onEachSharedStore('idempotency keys shared by two instances', (t, server) => shared(t, server.url));
