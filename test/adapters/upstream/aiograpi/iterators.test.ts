// Issue 27, point 4, through a real sidecar and the stand-in library: 1.12.13's async iterators are
// told by the library's capabilities and read as server-side cursors a page at a time (a cursor the
// sidecar no longer holds is SidecarCursorGone); a job pages through the iterator on 1.12.13 and
// through the chunk method on 1.0.9, and collects the same items.
import t, { type Test } from 'tap';
import { createApp } from '../../../../engine/app.js';
import { testConfig } from '../../../../engine/config.js';
import { createLogger } from '../../../../engine/log.js';
import { createStore } from '../../../../adapters/store/keyv.js';
import { productParts } from '../../../../bin/compose.js';
import { serve } from '../../../helpers/http.js';
import { PASSWORD, standInAdapter } from '../../../helpers/sidecar.js';
import { probeUpstream } from '../../../support/probe-upstream.js';
import { sleep } from '../../../support/process.js';

const DEMO = '5000000001';

function adapterOf(t: Test, version: string) {
  // The sidecar inherits the environment at spawn: the stand-in reads its version from it.
  process.env.AIOGRAPI_STANDIN_VERSION = version;
  const adapter = standInAdapter(t, { timeoutMs: 5000 });
  t.teardown(() => void delete process.env.AIOGRAPI_STANDIN_VERSION);
  return adapter;
}

t.test('1.12.13: the iterator is a capability and is read a page at a time', async (t) => {
  const adapter = adapterOf(t, '1.12.13');
  await adapter.ready();
  t.match(adapter.library.capabilities, { iterators: ['iter_user_followers_v1'] });
  const client = await adapter.open({ settings: {} });
  const first = (await client.call('iter_user_followers_v1', { user_id: DEMO }, { page: { size: 3 } })) as { items: { pk: string }[]; cursor?: string };
  t.equal(first.items.length, 3);
  t.type(first.cursor, 'string', 'a cursor to read on with');
  const rest = (await client.call('iter_user_followers_v1', { user_id: DEMO }, { page: { cursor: first.cursor, size: 3 } })) as {
    items: { pk: string }[];
    cursor?: string;
  };
  t.equal(rest.items.length, 2, 'the last two of five');
  t.notOk(rest.cursor, 'no cursor once spent');
  const chunk = (await client.call('user_followers_v1_chunk', { user_id: DEMO, max_amount: 0 })) as [{ pk: string }[], string];
  t.same(
    [...first.items, ...rest.items].map((u) => u.pk),
    chunk[0].map((u) => u.pk),
    "the chunk method's items, in its order",
  );
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => ({ excType: 'none' }),
      (error: unknown) => error,
    );
  t.match(
    await failure(client.call('iter_user_followers_v1', { user_id: DEMO }, { page: { cursor: first.cursor, size: 3 } })),
    { excType: 'SidecarCursorGone' },
    'a spent cursor is gone',
  );
  t.match(
    await failure(client.call('user_info', { user_id: DEMO }, { page: { size: 3 } })),
    { excType: 'SidecarProtocolError' },
    'only an iterator is read by pages',
  );
});

t.test('1.0.9 has no iterator', async (t) => {
  const adapter = adapterOf(t, '1.0.9');
  await adapter.ready();
  t.match(adapter.library.capabilities, { iterators: [] });
});

for (const [version, paging, method] of [
  ['1.12.13', 'iterator', 'iter_user_followers_v1'],
  ['1.0.9', 'chunks', 'user_followers_v1_chunk'],
] as const) {
  t.test(`a job on ${version} pages through ${method}`, async (t) => {
    const probe = probeUpstream(adapterOf(t, version));
    const config = testConfig({ upstream: 'aiograpi', extra: { JOB_INTERVAL_MS: '0' } });
    const app = createApp({ config, upstream: probe.adapter, store: await createStore('memory://'), ...productParts(config), log: createLogger('silent') });
    const http = await serve(app);
    t.teardown(() => http.close());
    await probe.adapter.ready();
    const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } });
    const headers = { 'x-session-id': login.body as string };
    const started = await http.request('POST', '/jobs', {
      form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: DEMO, amount: 2 }) },
      headers,
    });
    t.equal(started.status, 202, started.text);
    const id = (started.body as { id: string }).id;
    let job: { state: string; items: number; paging?: string } = { state: 'queued', items: 0 };
    for (const deadline = Date.now() + 20_000; job.state !== 'done' && Date.now() < deadline; await sleep(50)) {
      job = (await http.request('GET', '/jobs/status', { query: { id } })).body as typeof job;
    }
    t.match(job, { state: 'done', items: 5, paging });
    t.equal(probe.count(method), 3, `three pages of two through ${method}`);
  });
}
