// Share links and search over HTTP: share links in both forms decode (the world's own links too)
// without touching the platform; search routes page with the platform's cursors and honour count.
import t from 'tap';
import { createSandbox } from '../../../../adapters/upstream/sandbox/index.js';
import { demoOverHttp } from '../../../helpers/full-app.js';
import type { R } from '../../../helpers/session-http.js';
import { errorWith } from '../../../helpers/assert.js';

const { call, request, world } = await demoOverHttp(t);
const base64 = (text: string) => Buffer.from(text).toString('base64');

t.test('GET /share decodes /share/<code> and /s/<code>?igsh= links and bare codes', async (t) => {
  const code = base64('highlight:17895485201104054');
  for (const url of [
    `https://www.instagram.com/share/${code}`,
    `https://www.instagram.com/s/${code}?igsh=abc123&utm_source=copy`,
    `https://instagram.com/share/${code}/`,
  ]) {
    t.same(await call('GET', '/share', { url }), { type: 'highlight', pk: '17895485201104054', code }, url);
  }
  t.same(await call('GET', '/share', { code: base64('media:3111') }), { type: 'media', pk: '3111', code: base64('media:3111') }, 'a bare code');
  // Python's base64 skips characters outside its alphabet and drops \x1d, as aiograpi relies on.
  t.match(await call('GET', '/share', { code: `${base64('reel\x1d:42')}` }), { type: 'reel', pk: '42' }, "the platform's \\x1d padding is dropped");
});

t.test('GET /share refuses what aiograpi cannot decode', async (t) => {
  const bad = await request('GET', '/share', { url: 'https://www.instagram.com/share/BAbCdEfGh1' });
  t.equal(bad.status, 422, 'a code that is not padded base64: ShareDecodeError');
  t.match(bad.body, { exc_type: 'ShareDecodeError', detail: /Incorrect padding/ });
});

t.test("share links in demo's direct threads decode to media the world has", async (t) => {
  const threads = (await call('GET', '/direct/threads', { amount: 100, thread_message_limit: 100 })) as R[];
  const links = threads.flatMap((th) => (th.messages as R[]).filter((m) => m.item_type === 'link').map((m) => m.link.link_context.link_url as string));
  t.ok(links.some((u) => u.includes('/share/')) && links.some((u) => u.includes('/s/')), `both link forms are in the inbox (${links.length} links)`);
  for (const url of links.slice(0, 6)) {
    const share = await call('GET', '/share', { url });
    t.equal(share.type, 'media', `${url} names a media`);
    t.equal((await call('GET', '/media', { pk: share.pk })).pk, share.pk, 'which GET /media finds');
  }
});

t.test('share decoding needs no login and is never faulted or throttled', async (t) => {
  const stormy = createSandbox({ seed: 1, errorRate: 1, throttleRate: 1 });
  const client = await stormy.open({ settings: {} });
  const url = `https://www.instagram.com/share/${base64('media:777')}`;
  t.equal(await client.call('share_code_from_url', { url }), base64('media:777'));
  t.same(await client.call('share_info_by_url', { url }), { pk: '777', type: 'media' });
  t.same(await client.call('share_info', { code: base64('media:777') }), { pk: '777', type: 'media' });
  await t.rejects(
    client.call('user_info', { user_id: '5000000001' }),
    errorWith({ excType: 'ClientConnectionError' }),
    'a platform call in the same storm fails',
  );
});

t.test('GET /search/accounts pages with page_token until has_more is false', async (t) => {
  const matching = [...world.users.values()].filter((u) => u.username.includes('a') || u.fullName.toLowerCase().includes('a')).length;
  t.ok(matching > 60, `many accounts match "a" (${matching})`);
  const seen: string[] = [];
  let token: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await call('GET', '/search/accounts', token ? { query: 'a', page_token: token } : { query: 'a' });
    t.ok((page.users as R[]).length <= 30, 'at most 30 a page');
    seen.push(...(page.users as R[]).map((u) => String(u.pk)));
    if (!page.has_more) {
      t.equal(page.page_token, null, 'the last page has no token');
      break;
    }
    t.type(page.page_token, 'string', 'has_more comes with a page_token');
    token = page.page_token;
  }
  t.equal(new Set(seen).size, seen.length, 'no account twice');
  t.equal(seen.length, matching, 'every matching account');
});

t.test('GET /search/top pages its results with next_max_id and its reels with reels_max_id', async (t) => {
  const first = await call('GET', '/search/top', { query: 'a' });
  const count = (page: R) => (page.users as R[]).length + (page.hashtags as R[]).length + (page.places as R[]).length;
  t.equal(count(first), 30, 'a full first page');
  t.equal(first.has_more, true);
  const second = await call('GET', '/search/top', { query: 'a', next_max_id: first.next_max_id });
  const pks = (page: R) => (page.users as R[]).map((u) => String(u.user.pk));
  t.same(
    pks(second).filter((pk) => pks(first).includes(pk)),
    [],
    'the next page repeats no account',
  );
  t.ok(count(second) > 0);
  const reels = await call('GET', '/search/reels', { query: 'a' });
  t.equal(reels.has_more, true, 'many reels match');
  const more = await call('GET', '/search/reels', { query: 'a', reels_max_id: reels.reels_max_id });
  const clipPks = (page: R) => (page.reels_serp_modules[0].clips as R[]).map((c) => c.media.pk);
  t.same(
    clipPks(more).filter((pk) => clipPks(reels).includes(pk)),
    [],
    'reels_max_id continues without repeats',
  );
});

t.test('count bounds GET /search/item and the typeahead routes', async (t) => {
  const item = await call('GET', '/search/item', { item_id: 'x', search_surface: 'user_serp', query: 'a', count: 5 });
  t.equal((item.users as R[]).length, 5, 'user_serp: count accounts');
  t.equal(item.has_more, true);
  const next = await call('GET', '/search/item', { item_id: 'x', search_surface: 'user_serp', query: 'a', count: 5, next_max_id: item.next_max_id });
  t.same(
    (next.users as R[]).map((u) => u.user.pk).filter((pk) => (item.users as R[]).some((u) => u.user.pk === pk)),
    [],
    'next_max_id: the next five',
  );
  t.equal(((await call('GET', '/search/typeahead', { query: 'a', count: 7 })).list as R[]).length, 7, 'typeahead: count rows');
  const stream = await call('GET', '/search/typeahead/stream', { query: 'a', count: 4 });
  t.equal((stream.list as R[]).length, 4, 'typeahead stream: count rows');
  t.equal((stream.stream_rows as R[]).length, 4, 'and count stream rows');
  const exact = await call('GET', '/search/typeahead', { query: 'sunset', count: 3 });
  t.same(exact.list[0], { keyword: { name: 'sunset', id: 'sunset' } }, 'an exact name ranks first');
});
