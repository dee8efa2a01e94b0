// The guarded fetcher against a local server on 127.0.0.1: every URL here is loopback, and each
// refusal is checked to have happened before any request reached the server.
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { fetchToFile, transferSettingsFromEnv, TransferError, type FetchSettings, type Resolver } from '../../../adapters/transfer/index.js';
import { product } from '../../helpers/full-app.js';
import { loopbackServer } from '../../helpers/loopback.js';

const BODY = Buffer.alloc(256 * 1024, 7);
const { base, port, hits } = await loopbackServer(t, (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const routes: Record<string, () => void> = {
    '/file': () => res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': BODY.length }).end(BODY),
    '/chunked': () => {
      res.writeHead(200);
      res.write(BODY);
      res.end(BODY);
    },
    '/redirect': () => res.writeHead(302, { location: url.searchParams.get('to') ?? '/file' }).end(),
    '/loop': () => res.writeHead(301, { location: '/loop' }).end(),
    '/bare-redirect': () => res.writeHead(302).end(),
    '/missing': () => res.writeHead(404).end('no'),
    '/stall-body': () => {
      res.writeHead(200);
      res.write('partial');
    },
    '/stall-headers': () => undefined,
    '/gzip-bomb': () => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(8 * 1024 * 1024))),
  };
  (routes[url.pathname] ?? (() => res.writeHead(404).end()))();
});
let dir = '';

t.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sg-fetch-'));
});
t.after(() => rm(dir, { recursive: true, force: true }));

function settings(extra: Record<string, string> = {}): FetchSettings {
  return transferSettingsFromEnv({ FETCH_TIMEOUT_MS: '300', FETCH_CONNECT_TIMEOUT_MS: '300', ...extra }).fetch;
}
const LOOPBACK = settings({ FETCH_ALLOW: '127.0.0.1' });

async function refusal(url: string, s: FetchSettings, resolve?: Resolver): Promise<TransferError> {
  const err = await fetchToFile(url, { dir, settings: s, resolve }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TransferError)) throw new Error(`expected a TransferError for ${url}, got ${String(err)}`);
  return err;
}

async function leftovers(): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.startsWith('fetched-'));
}

t.test('fetches to a file when the allow-list permits loopback', async (t) => {
  const got = await fetchToFile(`${base}/file`, { dir, settings: LOOPBACK });
  t.equal(got.size, BODY.length);
  t.equal(got.contentType, 'video/mp4');
  t.equal(path.dirname(got.path), dir);
  t.same(await readFile(got.path), BODY);
  await rm(got.path);
  const chunked = await fetchToFile(`${base}/chunked`, { dir, settings: LOOPBACK });
  t.equal(chunked.size, 2 * BODY.length);
  await rm(chunked.path);
});

t.test('loopback URLs are refused without the allow-list, before any request', async (t) => {
  const none = settings();
  const cases: [string, RegExp][] = [
    [`${base}/file`, /127\.0\.0\.1 is a loopback address/],
    [`http://[::1]:${port}/file`, /::1 is a loopback address/],
    [`http://[::ffff:127.0.0.1]:${port}/file`, /127\.0\.0\.1 is a loopback address/],
    [`http://2130706433:${port}/file`, /127\.0\.0\.1 is a loopback address/],
    [`http://0x7f.1:${port}/file`, /127\.0\.0\.1 is a loopback address/],
    [`http://localhost:${port}/file`, /localhost resolves to .*loopback/],
  ];
  for (const [url, reason] of cases) {
    const err = await refusal(url, none);
    t.equal(err.problem, 'address', url);
    t.match(err.message, reason, url);
  }
  t.same(hits, [], 'the server saw nothing');
});

t.test('a redirect to loopback is re-checked and refused', async (t) => {
  const to = encodeURIComponent(`http://[::1]:${port}/file`);
  const err = await refusal(`${base}/redirect?to=${to}`, LOOPBACK);
  t.match(err, { problem: 'address', message: /::1 is a loopback address/ });
  const dual: Resolver = async () => [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ];
  const viaName = await refusal(`${base}/redirect?to=${encodeURIComponent(`http://dual.test:${port}/file`)}`, LOOPBACK, dual);
  t.match(viaName, { problem: 'address', message: /dual\.test resolves to ::1, a loopback address/ }, 'a name is judged by every address it has');
  t.same(
    hits.filter((h) => h === '/file'),
    [],
    'the target was never fetched',
  );
});

t.test('redirects: followed when allowed, bounded, http(s) only', async (t) => {
  const got = await fetchToFile(`${base}/redirect?to=%2Ffile`, { dir, settings: LOOPBACK });
  t.equal(got.size, BODY.length);
  await rm(got.path);
  hits.length = 0;
  t.match(await refusal(`${base}/loop`, LOOPBACK), { problem: 'redirect', message: 'more than 3 redirects' });
  t.equal(hits.length, 4, 'first request and three redirects');
  t.match(await refusal(`${base}/loop`, settings({ FETCH_ALLOW: '127.0.0.1', FETCH_MAX_REDIRECTS: '0' })), { problem: 'redirect' });
  t.match(await refusal(`${base}/bare-redirect`, LOOPBACK), { problem: 'redirect', message: /without a Location/ });
  t.match(await refusal(`${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, LOOPBACK), { problem: 'scheme', message: /not file/ });
  t.match(await refusal(`${base}/redirect?to=${encodeURIComponent('data:text/plain,hi')}`, LOOPBACK), { problem: 'scheme' });
});

t.test('only http and https', async (t) => {
  for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'data:image/png;base64,AAAA', 'gopher://127.0.0.1/', 'not a url']) {
    t.equal((await refusal(url, LOOPBACK)).problem, 'scheme', url);
  }
});

t.test('the size cap holds with and without a Content-Length, and leaves no file', async (t) => {
  const small = settings({ FETCH_ALLOW: '127.0.0.1', FETCH_MAX_MB: '0.1' });
  t.match(await refusal(`${base}/file`, small), { problem: 'size', message: /256 KB, over the 102.4 KB limit/ });
  t.match(await refusal(`${base}/chunked`, small), { problem: 'size' });
  const perFile = await fetchToFile(`${base}/chunked`, { dir, settings: LOOPBACK, maxBytes: 1000 }).catch((e: unknown) => e);
  t.match(perFile, { problem: 'size', message: /1000 bytes limit/ });
  t.match(await refusal(`${base}/gzip-bomb`, settings({ FETCH_ALLOW: '127.0.0.1', FETCH_MAX_MB: '1' })), { problem: 'size' }, 'decoded bytes count');
  t.same(await leftovers(), []);
});

t.test('connect and read timeouts', async (t) => {
  const started = Date.now();
  t.match(await refusal(`${base}/stall-headers`, LOOPBACK), { problem: 'timeout', message: /no response from 127\.0\.0\.1:\d+ within 300 ms/ });
  t.match(await refusal(`${base}/stall-body`, LOOPBACK), { problem: 'timeout', message: /sent nothing for 300 ms/ });
  t.ok(Date.now() - started < 3000, 'both gave up promptly');
  t.same(await leftovers(), []);
});

t.test('remote failures say what happened', async (t) => {
  t.match(await refusal(`${base}/missing`, LOOPBACK), { problem: 'status', message: /answered HTTP 404/ });
  const closed = http.createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const closedPort = (closed.address() as AddressInfo).port;
  closed.close();
  await once(closed, 'close');
  t.match(await refusal(`http://127.0.0.1:${closedPort}/`, LOOPBACK), { problem: 'network', message: /ECONNREFUSED/ });
});

t.test('the connection goes to the address the guard checked', async (t) => {
  // A table resolver stands in for DNS: the fetch can only reach the server through it.
  const table: Resolver = async (host) => (host === 'media.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const url = `http://media.test:${port}/file`;
  t.match(await refusal(url, settings(), table), { problem: 'address', message: /media\.test resolves to 127\.0\.0\.1, a loopback address/ });
  t.same(hits, []);
  const got = await fetchToFile(url, { dir, settings: LOOPBACK, resolve: table });
  t.same(await readFile(got.path), BODY);
  await rm(got.path);
  const byName = await fetchToFile(url, { dir, settings: settings({ FETCH_ALLOW: 'media.test' }), resolve: table });
  t.equal(byName.size, BODY.length);
  await rm(byName.path);
  t.match(await refusal(`http://other.test:${port}/file`, LOOPBACK, table), { problem: 'network', message: /no address/ });
});

t.test('a caller signal aborts the fetch', async (t) => {
  const controller = new AbortController();
  const pending = fetchToFile(`${base}/stall-body`, {
    dir,
    settings: settings({ FETCH_ALLOW: '127.0.0.1', FETCH_TIMEOUT_MS: '10000' }),
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 50);
  t.match(await pending.catch((e: unknown) => e), { problem: 'network' });
  t.same(await leftovers(), []);
});

t.test('a signal aborted before the fetch began stops it before any request', async (t) => {
  const err = await fetchToFile(`${base}/file`, { dir, settings: LOOPBACK, signal: AbortSignal.abort() }).catch((e: unknown) => e);
  t.match(err, { problem: 'network', message: /stopped: the request was cancelled/ });
  t.same(hits, [], 'the server saw nothing');
  t.same(await leftovers(), []);
});

t.test('over HTTP, a by/url upload with no allow-list refuses loopback with a 422 that says why', async (t) => {
  const sg = await product(); // the defaults: nothing allow-listed
  t.teardown(() => sg.client.close());
  const headers = { 'x-session-id': await sg.login() };
  const toLoopback = encodeURIComponent(`http://[::1]:${port}/file`);
  const cases: [string, RegExp][] = [
    [`${base}/file`, /127\.0\.0\.1 is a loopback address/],
    [`http://[::1]:${port}/file`, /::1 is a loopback address/],
    [`${base}/redirect?to=${toLoopback}`, /127\.0\.0\.1 is a loopback address/],
    [`http://localhost:${port}/redirect?to=${toLoopback}`, /localhost resolves to .*loopback/],
  ];
  for (const [url, why] of cases) {
    const reply = await sg.client.request('POST', '/photo/upload/by/url', { form: { url, caption: 'x' }, headers });
    t.match(reply, { status: 422, body: { exc_type: 'UrlNotFetched', reason: 'address', errors: [{ param: 'url', problem: why }] } }, url);
    t.match((reply.body as { detail?: string }).detail, /^The URL in url was not fetched: /, url);
  }
  t.same(hits, [], 'the local server, redirect and all, was never reached');
});
