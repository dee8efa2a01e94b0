// System routes: liveness, readiness (and its 503 naming the failing check), metrics after
// traffic, build and dependency metadata, the document and the explorer; none needs a session.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import type { SessionStore } from '../../../engine/types.js';
import { createStore } from '../../../adapters/store/keyv.js';
import { serve } from '../../helpers/http.js';

t.test('system routes answer without a session', async (t) => {
  const client = await serve(await composeApp(testConfig()));
  t.teardown(() => client.close());
  t.same((await client.request('GET', '/health')).body, { status: 'ok' });
  const ready = await client.request('GET', '/ready');
  t.equal(ready.status, 200);
  t.match(ready.body, { status: 'ready', checks: { store: { ok: true }, upstream: { ok: true, adapter: 'sandbox' } } });
  const build = (await client.request('GET', '/build')).body as Record<string, string>;
  t.match(build, {
    name: 'socialgate',
    version: '6.0.0',
    upstream_adapter: 'sandbox',
    upstream_library: 'aiograpi',
    upstream_version: '1.0.9',
    upstream_emulated: true,
    node: process.version,
  });
  t.type(build.git_sha, 'string');
  t.type(build.build_time, 'string');
  const deps = (await client.request('GET', '/deps')).body as Record<string, string>;
  for (const name of ['koa', '@koa/router', 'ajv', 'prom-client', 'keyv', 'node']) t.match(deps[name], /^\d+\.\d+\.\d+/, `${name} version`);
  await client.request('GET', '/user', { query: { user_id: '1' } }); // a 401, counted
  const metrics = await client.request('GET', '/metrics');
  t.match(metrics.headers.get('content-type'), /^text\/plain/);
  t.match(metrics.text, /socialgate_http_requests_total\{route="GET \/user",method="GET",status="401"\} 1/);
  t.match(metrics.text, /socialgate_http_requests_total\{route="GET \/health",method="GET",status="200"\} 1/);
  t.match(metrics.text, /socialgate_http_request_duration_seconds_bucket/);
  t.notMatch(metrics.text, /route="\/user\?/, 'labels are route templates, never raw URLs');
  const doc = (await client.request('GET', '/openapi.json')).body as { openapi: string; info: { version: string } };
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '6.0.0');
  const docs = await client.request('GET', '/docs');
  t.match(docs.headers.get('content-type'), /text\/html/);
  t.notMatch(docs.text, /https?:\/\/(?!127)/, 'no CDN: every asset is local');
  t.equal((await client.request('GET', '/docs/assets/swagger-ui.css')).status, 200);
  const notAllowed = await client.request('POST', '/health');
  t.equal(notAllowed.status, 405);
  t.equal(notAllowed.headers.get('allow'), 'GET, HEAD', 'a 405 names the allowed methods');
  const options = await client.request('OPTIONS', '/user/follow');
  t.equal(options.status, 204, 'OPTIONS answers');
  t.equal(options.headers.get('allow'), 'POST, DELETE', 'with the methods of the path');
  const head = await client.request('HEAD', '/health');
  t.equal(head.status, 200, 'HEAD runs the GET route');
  t.equal(head.text, '', 'without a body');
  t.equal((await client.request('PUT', '/user/follow')).headers.get('allow'), 'POST, DELETE');
  await client.request('PUT', '/nowhere');
  const after = (await client.request('GET', '/metrics')).text;
  t.match(after, /socialgate_http_requests_total\{route="unmatched",method="POST",status="405"\} 1/, 'unmatched requests keep their own method');
  t.match(after, /socialgate_http_requests_total\{route="unmatched",method="PUT",status="405"\} 1/);
  t.match(after, /socialgate_http_requests_total\{route="unmatched",method="PUT",status="404"\} 1/);
  const openapi = await client.request('GET', '/openapi.json');
  t.match(openapi.headers.get('content-type'), /^application\/json/);
  t.equal(openapi.text, JSON.stringify(doc), 'the document is served as serialised once');
});

/** A memory store whose readiness check is `ready` (its class's methods bound: a spread alone would lose them). */
async function memoryStoreReady(ready: SessionStore['ready']): Promise<SessionStore> {
  const store = await createStore('memory://');
  return {
    ...store,
    get: store.get.bind(store),
    set: store.set.bind(store),
    delete: store.delete.bind(store),
    list: store.list.bind(store),
    close: store.close.bind(store),
    ready,
  };
}

t.test('/ready answers 503 naming the failing check', async (t) => {
  const broken = await memoryStoreReady(async () => ({ ok: false, detail: 'disk full' }));
  const client = await serve(await composeApp(testConfig(), { store: broken }));
  t.teardown(() => client.close());
  const ready = await client.request('GET', '/ready');
  t.equal(ready.status, 503);
  t.match((ready.body as { detail: string }).detail, /store \(disk full\)/);
  t.equal((await client.request('GET', '/health')).status, 200, 'liveness is not readiness');
});

t.test('/ready answers within two seconds when a check hangs, and names the background layer', async (t) => {
  const hanging = await memoryStoreReady(() => new Promise(() => undefined));
  const client = await serve(await composeApp(testConfig(), { store: hanging }));
  t.teardown(() => client.close());
  const started = Date.now();
  const ready = await client.request('GET', '/ready');
  t.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
  t.equal(ready.status, 503);
  t.match((ready.body as { detail: string }).detail, /store \(no answer within 1500 ms\)/);
  t.match((ready.body as { checks: unknown }).checks, { work: { ok: true, engine: 'sqlite' } }, 'the work store is checked too');
});

t.test('with an API key configured, the document asks for it on every route but the system ones', async (t) => {
  const client = await serve(await composeApp(testConfig({ apiKey: 'k'.repeat(32) })));
  t.teardown(() => client.close());
  const doc = (await client.request('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { security: Record<string, unknown>[] }>>;
    components: { securitySchemes: Record<string, unknown> };
  };
  t.ok(doc.components.securitySchemes.ApiKey, 'ApiKey scheme');
  t.same(doc.paths['/user'].get.security, [{ ApiKey: ['read'], SessionId: [] }], 'with the scope the key needs');
  t.same(doc.paths['/auth/login'].post.security, [{ ApiKey: ['write'] }]);
  t.same(doc.paths['/console/sessions'].get.security, [{ ApiKey: ['operator'] }]);
  t.same(doc.paths['/health'].get.security, []);
  t.equal((await client.request('GET', '/user', { query: { user_id: '1' } })).status, 401, 'without the key');
});
