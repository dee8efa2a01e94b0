// Drift: the manifest, the router and the OpenAPI document describe the same routes, both ways;
// every operation has the shape the manifest gives it; every upstream name the manifest uses is
// implemented by the sandbox.
import t from 'tap';
import { requestSchemaName } from '../engine/openapi.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { product } from './helpers/full-app.js';

const { app, client } = await product();
t.teardown(() => client.close());
const manifestKeys = new Set(app.manifest.routes.map((r) => r.key));

t.test('every manifest route is in the router, and every router route is in the manifest', async (t) => {
  const routerKeys = new Set(app.router.entries().map((e) => `${e.method} ${e.path}`));
  t.same([...manifestKeys].filter((k) => !routerKeys.has(k)), [], 'manifest → router');
  t.same([...routerKeys].filter((k) => !manifestKeys.has(k)), [], 'router → manifest');
});

t.test('every manifest route is in the OpenAPI document, and the reverse', async (t) => {
  const doc = (await client.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { operationId: string; security?: unknown[] }>>; info: { version: string }; components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> } };
  t.equal(doc.info.version, '6.0.0');
  const docKeys = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
  t.same([...manifestKeys].filter((k) => !docKeys.has(k)), [], 'manifest → OpenAPI');
  t.same([...docKeys].filter((k) => !manifestKeys.has(k)), [], 'OpenAPI → manifest');
  const ids = new Set<string>();
  for (const route of app.manifest.routes) {
    const op = doc.paths[route.path][route.method.toLowerCase()];
    t.equal(op.operationId, route.id, `${route.key} operation id`);
    t.notOk(ids.has(op.operationId), `${route.id} unique`);
    ids.add(op.operationId);
    const secured = Array.isArray(op.security) && op.security.some((s) => s && typeof s === 'object' && 'SessionId' in s);
    t.equal(secured, route.session !== 'none', `${route.key} security matches its session mode`);
    if (route.method !== 'GET' && route.method !== 'DELETE') t.ok(doc.components.schemas[requestSchemaName(route)], `${route.key} has a named request schema`);
  }
  t.ok(doc.components.securitySchemes.SessionId, 'X-Session-ID scheme for Authorize');
  for (const route of app.manifest.routes.filter((r) => !r.params.some((p) => p.name === 'sessionid'))) {
    const op = JSON.stringify(doc.paths[route.path][route.method.toLowerCase()]) + JSON.stringify(doc.components.schemas[requestSchemaName(route)] ?? {});
    t.notOk(op.includes('"sessionid"'), `${route.key}: the legacy sessionid is not a documented parameter`);
  }
});

t.test('every upstream method the manifest names is implemented by the sandbox', async (t) => {
  const sandbox = createSandbox();
  const named = new Set(app.manifest.routes.flatMap((r) => r.upstreamMethods));
  const missing = [...named].filter((m) => !sandbox.methods.has(m)).sort();
  t.same(missing, [], `${named.size} methods named, all implemented`);
});

t.test('the removed route stays removed', async (t) => {
  t.notOk(manifestKeys.has('GET /hashtag/related'));
  t.equal((await client.request('GET', '/hashtag/related', { query: { name: 'x' } })).status, 404);
});
