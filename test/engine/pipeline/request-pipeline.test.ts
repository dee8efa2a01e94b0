// The request pipeline on the fixture manifest: sessions, parameters, coercion, validation,
// resolution, calls, shapes and the error body, through real HTTP.
import t, { type Test } from 'tap';
import { UpstreamError } from '../../../engine/types.js';
import { engineApp } from '../../helpers/engine-app.js';
import { serve } from '../../helpers/http.js';

async function setup(t: Test, handlers = {}) {
  const { app, upstream } = await engineApp(handlers);
  const client = await serve(app);
  t.teardown(() => client.close());
  const login = await client.request('POST', '/auth/login', { form: { username: 'demo', password: 'pw' } });
  t.equal(login.status, 200, 'login works');
  const sid = login.body as string;
  const get = (path: string, query?: Record<string, unknown>) => client.request('GET', path, { query, headers: { 'X-Session-ID': sid } });
  return { client, upstream, sid, get, app };
}

t.test('login returns an opaque id that is not the platform cookie', async (t) => {
  const { sid } = await setup(t);
  t.type(sid, 'string');
  t.ok(sid.length >= 32, 'at least 192 bits as base64url');
  t.not(sid, 'platform-cookie');
});

t.test('sessions: header, legacy query, form and cookie; missing and unknown are 401', async (t) => {
  const { client, sid, upstream } = await setup(t, { thing_info: (kw: Record<string, unknown>) => ({ pk: kw.thing_id }) });
  const q = { thing_id: '1' };
  t.equal((await client.request('GET', '/thing', { query: q, headers: { 'X-Session-ID': sid } })).status, 200);
  t.equal((await client.request('GET', '/thing', { query: { ...q, sessionid: sid } })).status, 200);
  t.equal((await client.request('GET', '/thing', { query: q, headers: { cookie: `sessionid=${sid}` } })).status, 200);
  t.equal((await client.request('DELETE', '/thing', { form: { thing_id: '1', sessionid: sid } })).status, 200);
  const missing = await client.request('GET', '/thing', { query: q });
  t.equal(missing.status, 401);
  t.equal((missing.body as { detail: string }).detail, 'Session ID required');
  const unknown = await client.request('GET', '/thing', { query: q, headers: { 'X-Session-ID': 'nope' } });
  t.equal(unknown.status, 401);
  t.equal((unknown.body as { exc_type: string }).exc_type, 'SessionNotFound');
  const before = upstream.calls.length;
  await client.request('GET', '/thing', { query: q, headers: { 'X-Session-ID': sid } });
  t.equal(upstream.calls.length - before, 1, 'exactly one upstream call per request, no session check call');
});

t.test('sessions: the sources win in the documented order (header, query, form field, cookie)', async (t) => {
  const { client, sid } = await setup(t, { thing_info: (kw: Record<string, unknown>) => ({ pk: kw.thing_id }) });
  const bogus = 'bogus-session-id';
  const cases: [string, Parameters<typeof client.request>[2], number][] = [
    ['header over query', { form: { thing_id: '1' }, query: { sessionid: bogus }, headers: { 'X-Session-ID': sid } }, 200],
    ['query over form', { form: { thing_id: '1', sessionid: bogus }, query: { sessionid: sid } }, 200],
    ['form over cookie', { form: { thing_id: '1', sessionid: sid }, headers: { cookie: `sessionid=${bogus}` } }, 200],
    ['a bogus form field is not rescued by a good cookie', { form: { thing_id: '1', sessionid: bogus }, headers: { cookie: `sessionid=${sid}` } }, 401],
    ['a bogus header is not rescued by a good query', { form: { thing_id: '1' }, query: { sessionid: sid }, headers: { 'X-Session-ID': bogus } }, 401],
  ];
  for (const [name, options, status] of cases) t.equal((await client.request('DELETE', '/thing', options)).status, status, name);
});

t.test('ids stay strings; defaults apply; booleans and integers coerce', async (t) => {
  const { get, upstream } = await setup(t, { thing_info: (kw: Record<string, unknown>) => ({ pk: kw.thing_id, title: null }) });
  const reply = await get('/thing', { thing_id: '12345678901234567890', verbose: 'yes' });
  t.equal(reply.status, 200);
  t.same(reply.body, { pk: '12345678901234567890', title: null });
  t.same(upstream.calls.at(-1)!.kwargs, { thing_id: '12345678901234567890', verbose: true });
});

t.test('page shape, upstream renames, bounds and enum', async (t) => {
  const { get, upstream } = await setup(t, { things_chunk: () => [[{ pk: '1' }], 'next'] });
  const ok = await get('/things', { owner_id: '7', amount: '20' });
  t.same(ok.body, { items: [{ pk: '1' }], next_cursor: 'next' });
  t.same(upstream.calls.at(-1)!.kwargs, { owner_id: '7', max_amount: 20, max_id: '' });
  const bad = await get('/things', { amount: 'many', kind: 'c', extra: '1' });
  t.equal(bad.status, 422);
  const errors = (bad.body as { errors: { param: string; problem: string }[] }).errors;
  t.same(errors.map((e) => e.param).sort(), ['amount', 'extra', 'kind', 'owner_id']);
  t.match(errors.find((e) => e.param === 'amount')!.problem, /integer/);
  t.match(errors.find((e) => e.param === 'extra')!.problem, /unknown parameter/);
  t.match((bad.body as { detail: string }).detail, /amount/);
  const big = await get('/things', { owner_id: '7', amount: '201' });
  t.equal(big.status, 422);
  t.match((big.body as { detail: string }).detail, /amount .*<= 200/);
});

t.test('repeated parameters become arrays; stream page shape', async (t) => {
  const { get, upstream } = await setup(t, {
    things_by_ids: (kw: { thing_ids: string[] }) => Object.fromEntries(kw.thing_ids.map((id) => [id, { pk: id }])),
    things_stream: () => [[], 'min', 'max'],
  });
  const many = await get('/things/many', { thing_ids: ['1', '2'] });
  t.same(many.body, [{ pk: '1' }, { pk: '2' }], 'a dict keyed by pk becomes its values');
  t.same(upstream.calls.at(-1)!.kwargs, { thing_ids: ['1', '2'] });
  const one = await get('/things/many', { thing_ids: '3' });
  t.same(one.body, [{ pk: '3' }]);
  t.same((await get('/things/stream')).body, { items: [], min_cursor: 'min', max_cursor: 'max' });
});

t.test('JSON form fields: one array or repeated values; bad JSON is a 422 naming the field', async (t) => {
  const { client, sid, upstream } = await setup(t, { thing_create: (kw: Record<string, unknown>) => ({ pk: '9', ...kw }) });
  const post = (form: Record<string, unknown>) => client.request('POST', '/thing', { form, headers: { 'X-Session-ID': sid } });
  t.equal((await post({ title: 'x', tags: JSON.stringify([{ name: 'a' }, { name: 'b' }]) })).status, 200);
  t.same(
    upstream.calls.at(-1)!.kwargs.tags,
    [
      { name: 'a', x: 0.5 },
      { name: 'b', x: 0.5 },
    ],
    'schema defaults fill in',
  );
  t.equal((await post({ title: 'x', tags: [JSON.stringify({ name: 'a' }), JSON.stringify({ name: 'b', x: 0.1 })] })).status, 200);
  t.same(upstream.calls.at(-1)!.kwargs.tags, [
    { name: 'a', x: 0.5 },
    { name: 'b', x: 0.1 },
  ]);
  const bad = await post({ title: 'x', tags: '{nope', place: JSON.stringify({}) });
  t.equal(bad.status, 422);
  const params = (bad.body as { errors: { param: string }[] }).errors.map((e) => e.param).sort();
  t.same(params, ['place', 'tags']);
  t.same(upstream.calls.at(-1)!.method, 'thing_create', 'nothing reached the upstream');
});

t.test('DELETE reads form fields and the query string', async (t) => {
  const { client, sid, upstream } = await setup(t, { thing_delete: () => true });
  t.same((await client.request('DELETE', '/thing', { query: { thing_id: '5' }, headers: { 'X-Session-ID': sid } })).body, true);
  t.same(upstream.calls.at(-1)!.kwargs, { thing_id: '5' });
  t.same((await client.request('DELETE', '/thing', { form: { thing_id: '6' }, headers: { 'X-Session-ID': sid } })).body, true);
  t.same(upstream.calls.at(-1)!.kwargs, { thing_id: '6' });
});

t.test('username resolution: numeric id, @username in user_id, username; cached; neither or both 422', async (t) => {
  const { get, upstream } = await setup(t, {
    user_info_by_username_v1: (kw: { username: string }) => ({ pk: kw.username === 'ann' ? '100' : '200' }),
    owner_things: () => [],
  });
  await get('/owner/things', { user_id: '55' });
  t.same(upstream.calls.at(-1)!.kwargs, { user_id: '55' });
  await get('/owner/things', { user_id: '@Ann' });
  t.same(
    upstream.calls.slice(-2).map((c) => c.method),
    ['user_info_by_username_v1', 'owner_things'],
  );
  t.same(upstream.calls.at(-1)!.kwargs, { user_id: '100' });
  const before = upstream.calls.length;
  await get('/owner/things', { username: 'ann' });
  t.equal(upstream.calls.length - before, 1, 'second lookup comes from the cache');
  t.same(upstream.calls.at(-1)!.kwargs, { user_id: '100' });
  t.equal((await get('/owner/things')).status, 422);
  const both = await get('/owner/things', { user_id: '1', username: 'ann' });
  t.equal(both.status, 422);
  t.match((both.body as { detail: string }).detail, /only one of user_id, username/);
});

t.test('calls with conditions feed later calls; compose shape', async (t) => {
  const { get, upstream } = await setup(t, { code_from_url: () => 'abc', decode_code: (kw: { code: string }) => ({ type: 'post', pk: `pk-${kw.code}` }) });
  t.same((await get('/decode', { url: 'https://example.invalid/s/abc' })).body, { type: 'post', pk: 'pk-abc', code: 'abc' });
  t.same((await get('/decode', { code: 'xyz' })).body, { type: 'post', pk: 'pk-xyz', code: 'xyz' });
  t.equal((await get('/decode', { url: 'ftp://nope' })).status, 422, 'url must be http(s)');
  t.same(upstream.calls.at(-1)!.method, 'decode_code');
});

t.test('state choice by enum; tuple shape; session-less route', async (t) => {
  const { client, sid, upstream } = await setup(t, {
    thing_start: () => ({ ok: 'started' }),
    thing_end: () => ({ ok: 'ended' }),
    thing_creator: () => [{ pk: '1' }, { n: 2 }],
    make_code: () => 123456,
  });
  const patch = (state: string) => client.request('PATCH', '/thing/state', { form: { thing_id: '1', state }, headers: { 'X-Session-ID': sid } });
  t.same((await patch('started')).body, { ok: 'started' });
  t.same(upstream.calls.at(-1)!.kwargs, { thing_id: '1' }, 'state is not passed upstream');
  t.same((await patch('ended')).body, { ok: 'ended' });
  t.equal((await patch('paused')).status, 422);
  t.same((await client.request('GET', '/thing/creator', { query: { thing_id: '1' }, headers: { 'X-Session-ID': sid } })).body, {
    user: { pk: '1' },
    info: { n: 2 },
  });
  t.same((await client.request('GET', '/code', { query: { seed: 'S' } })).body, '123456');
});

t.test('upstream errors map through the registry into one body shape', async (t) => {
  const raise =
    (name: string, message = 'boom', extra = {}) =>
    () => {
      throw new UpstreamError(name, message, extra);
    };
  const { get, upstream } = await setup(t, {});
  const cases: [string, unknown, number][] = [
    ['UserNotFound', raise('UserNotFound'), 404],
    ['MediaNotFound', raise('MediaNotFound'), 404],
    ['ChallengeRequired', raise('ChallengeRequired', 'challenge', { lastJson: { step_name: 'verify_email' } }), 403],
    ['TwoFactorRequired', raise('TwoFactorRequired'), 401],
    ['BadPassword', raise('BadPassword'), 401],
    ['SomethingNew', raise('SomethingNew'), 502],
    ['Username', raise('UnknownError', "The username you entered doesn't appear to belong to an account."), 401],
  ];
  for (const [name, handler, status] of cases) {
    upstream.handlers.thing_info = handler as never;
    const reply = await get('/thing', { thing_id: '1' });
    t.equal(reply.status, status, name);
    const body = reply.body as Record<string, unknown>;
    t.equal(body.request_id, reply.headers.get('x-request-id'), `${name}: request id in body and header`);
    t.type(body.detail, 'string');
    if (name === 'ChallengeRequired') t.same(body.last_json, { step_name: 'verify_email' });
    if (name === 'SomethingNew') t.equal(body.exc_type, 'SomethingNew');
    if (name === 'Username') t.match(body.hint, /check the username/i);
  }
});

t.test('throttling: 429 with Retry-After, then the governor answers without calling the upstream', async (t) => {
  const { get, upstream } = await setup(t, {
    thing_info: () => {
      throw new UpstreamError('PleaseWaitFewMinutes', 'Please wait a few minutes before you try again.');
    },
  });
  const first = await get('/thing', { thing_id: '1' });
  t.equal(first.status, 429);
  t.ok(Number(first.headers.get('retry-after')) > 0);
  const before = upstream.calls.length;
  const second = await get('/thing', { thing_id: '1' });
  t.equal(second.status, 429);
  t.ok(Number(second.headers.get('retry-after')) > 0);
  t.equal(upstream.calls.length, before, 'no upstream call while throttled');
});

t.test('downloads stream the file, then remove it and its folder', async (t) => {
  const { writeFile } = await import('node:fs/promises');
  const { existsSync } = await import('node:fs');
  const { join, dirname } = await import('node:path');
  let written = '';
  const { get } = await setup(t, {
    thing_download: async (kw: { folder: string }) => {
      written = join(kw.folder, 'thing.jpg');
      await writeFile(written, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
      return written;
    },
  });
  const reply = await get('/thing/download', { thing_id: '1' });
  t.equal(reply.status, 200);
  t.equal(reply.headers.get('content-type'), 'image/jpeg');
  t.equal(reply.headers.get('content-length'), '7');
  t.match(reply.headers.get('content-disposition'), /thing\.jpg/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.notOk(existsSync(written), 'file removed');
  t.notOk(existsSync(dirname(written)), 'private folder removed');
  t.equal((await get('/thing/download', { thing_id: '1', folder: '/etc' })).status, 422, 'no caller-chosen folder');
});

t.test('unknown routes are JSON 404s', async (t) => {
  const { client } = await setup(t);
  const reply = await client.request('GET', '/hashtag/related');
  t.equal(reply.status, 404);
  t.equal((reply.body as { exc_type: string }).exc_type, 'NoSuchRoute');
});

t.test('constant results call nothing; rules tie the values of one parameter to another', async (t) => {
  const { client, sid, upstream, get } = await setup(t, { thing_setting: () => true });
  const before = upstream.calls.length;
  t.same((await get('/thing/kinds')).body, { kinds: ['a', 'b'], modes: ['off', 'on'] });
  t.equal(upstream.calls.length, before, 'no upstream call');
  const patch = (name: string, value: string) => client.request('PATCH', '/thing/setting', { form: { name, value }, headers: { 'X-Session-ID': sid } });
  t.equal((await patch('color', 'on')).status, 200);
  t.equal((await patch('mute', '15_minutes')).status, 200);
  const bad = await patch('mute', 'on');
  t.equal(bad.status, 422);
  t.same(
    (bad.body as { errors: { param: string }[] }).errors.map((e) => e.param),
    ['value'],
  );
  t.equal((await patch('color', 'cancel')).status, 422);
});

t.test('by-URL downloads only name the platform media hosts, resolved to public addresses', async (t) => {
  const { downloadGuard } = await import('../../../adapters/transfer/download-guard.js');
  const { parseAllowList } = await import('../../../adapters/transfer/address-guard.js');
  const table: Record<string, string[]> = { 'scontent.cdninstagram.com': ['157.240.1.174'], 'evil.cdninstagram.com': ['10.0.0.5'] };
  const guard = downloadGuard({
    hosts: ['*.cdninstagram.com'],
    trusted: ['media.sandbox.invalid'],
    allow: parseAllowList([]),
    resolve: async (host) => (table[host] ?? []).map((address) => ({ address, family: 4 })),
  });
  const check = async (url: string) => {
    try {
      await guard.resolve({ url }, { by: 'download_url', from: ['url'], into: 'url' }, undefined as never);
      return 'ok';
    } catch (error) {
      return (error as { errors?: { param: string; problem: string }[] }).errors?.[0]?.problem ?? String(error);
    }
  };
  t.equal(await check('https://scontent.cdninstagram.com/v/a.jpg'), 'ok');
  t.equal(await check('https://media.sandbox.invalid/i/1.jpg'), 'ok', "the upstream's own host needs no DNS");
  t.match(await check('http://169.254.169.254/latest/meta-data'), /not one of the platform's media hosts/);
  t.match(await check('http://localhost:8000/x'), /not one of the platform's media hosts/);
  t.match(await check('https://evil.cdninstagram.com/a.jpg'), /10\.0\.0\.5/, 'a media host resolving to a private address is refused');
  t.match(await check('file:///etc/passwd'), /only http and https/);
});

t.test("data is answered in one head: the request id, JSON's type and the length in bytes; HEAD the same head, no body", async (t) => {
  const things = [{ name: 'café ☕', n: 1 }];
  const { client, sid, get } = await setup(t, { owner_things: () => things });
  const reply = await get('/owner/things', { user_id: '55' });
  t.equal(reply.status, 200, reply.text);
  t.same(reply.body, things);
  t.match(reply.headers.get('x-request-id'), /^[0-9a-f]{12}-[0-9a-z]+$/);
  t.equal(reply.headers.get('content-type'), 'application/json; charset=utf-8');
  t.equal(Number(reply.headers.get('content-length')), Buffer.byteLength(reply.text), 'the length counts bytes, not characters');
  t.ok(Buffer.byteLength(reply.text) > reply.text.length, 'the body has multi-byte characters');
  const head = await client.request('HEAD', '/owner/things', { query: { user_id: '55' }, headers: { 'X-Session-ID': sid } });
  t.equal(head.status, 200);
  t.equal(head.text, '', 'HEAD has no body');
  t.equal(head.headers.get('content-type'), 'application/json; charset=utf-8');
  t.equal(head.headers.get('content-length'), reply.headers.get('content-length'), 'the length of the body GET sends');
  t.match(head.headers.get('x-request-id'), /^[0-9a-f]{12}-[0-9a-z]+$/);
  const given = await client.request('GET', '/owner/things', { query: { user_id: '55' }, headers: { 'X-Session-ID': sid, 'X-Request-ID': 'proxy-abc-67890' } });
  t.equal(given.headers.get('x-request-id'), 'proxy-abc-67890', "a proxy's id on data too");
});

t.test('request ids: a proxy-given X-Request-ID is kept, a malformed one replaced', async (t) => {
  const { client } = await setup(t);
  const kept = await client.request('GET', '/health', { headers: { 'X-Request-ID': 'proxy-abc-12345' } });
  t.equal(kept.headers.get('x-request-id'), 'proxy-abc-12345');
  const replaced = await client.request('GET', '/nope', { headers: { 'X-Request-ID': 'bad id <script>' } });
  t.not(replaced.headers.get('x-request-id'), 'bad id');
  t.equal((replaced.body as { request_id: string }).request_id, replaced.headers.get('x-request-id'));
  const a = (await client.request('GET', '/health')).headers.get('x-request-id');
  const b = (await client.request('GET', '/health')).headers.get('x-request-id');
  t.not(a, b, 'each request its own id');
});
