// Drift: the manifest, the router and the OpenAPI document describe the same routes, both ways;
// every operation has the shape the manifest gives it; every upstream name the manifest uses is
// implemented by the sandbox.
import t from 'tap';
import { requestSchemaName } from '../../engine/openapi.js';
import { createSandbox } from '../../adapters/upstream/sandbox/index.js';
import { SANDBOX_VERSIONS } from '../../adapters/upstream/sandbox/registry.js';
import { product } from '../helpers/full-app.js';
import { productRegistries } from '../../bin/compose.js';
import { scalarCoercers } from '../../engine/coerce.js';
import { testConfig } from '../../engine/config.js';
import { checkManifest } from '../../engine/manifest/check.js';
import { defaultManifestDir } from '../../engine/manifest/load.js';
import { normalise } from '../../engine/manifest/normalise.js';
import { readManifestFiles } from '../../engine/manifest/read.js';
import { resolvers } from '../../engine/resolvers.js';
import { shapes } from '../../engine/shapes.js';

const { app, client } = await product();
t.teardown(() => client.close());
const manifestKeys = new Set(app.manifest.routes.map((r) => r.key));

t.test('every manifest route is in the router, and every router route is in the manifest', async (t) => {
  const routerKeys = new Set(app.router.entries().map((e) => `${e.method} ${e.path}`));
  t.same(
    [...manifestKeys].filter((k) => !routerKeys.has(k)),
    [],
    'manifest → router',
  );
  t.same(
    [...routerKeys].filter((k) => !manifestKeys.has(k)),
    [],
    'router → manifest',
  );
});

t.test('every manifest route is in the OpenAPI document, and the reverse', async (t) => {
  const doc = (await client.request('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { operationId: string; security?: unknown[] }>>;
    info: { version: string };
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  };
  t.equal(doc.info.version, '6.0.0');
  const docKeys = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
  t.same(
    [...manifestKeys].filter((k) => !docKeys.has(k)),
    [],
    'manifest → OpenAPI',
  );
  t.same(
    [...docKeys].filter((k) => !manifestKeys.has(k)),
    [],
    'OpenAPI → manifest',
  );
  const ids = new Set<string>();
  for (const route of app.manifest.routes) {
    const op = doc.paths[route.path][route.method.toLowerCase()];
    t.equal(op.operationId, route.id, `${route.key} operation id`);
    t.notOk(ids.has(op.operationId), `${route.id} unique`);
    ids.add(op.operationId);
    const secured = Array.isArray(op.security) && op.security.some((s) => s && typeof s === 'object' && 'SessionId' in s);
    t.equal(secured, route.session !== 'none', `${route.key} security matches its session mode`);
    if (route.request.form.length || route.request.files.length)
      t.ok(doc.components.schemas[requestSchemaName(route)], `${route.key} has a named request schema`);
  }
  t.ok(doc.components.securitySchemes.SessionId, 'X-Session-ID scheme for Authorize');
  for (const route of app.manifest.routes.filter((r) => !r.params.some((p) => p.name === 'sessionid'))) {
    const op = JSON.stringify(doc.paths[route.path][route.method.toLowerCase()]) + JSON.stringify(doc.components.schemas[requestSchemaName(route)] ?? {});
    t.notOk(op.includes('"sessionid"'), `${route.key}: the legacy sessionid is not a documented parameter`);
  }
});

type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
};

t.test('each part of a request and the answer are documented as the route record has them', async (t) => {
  const doc = (await client.request('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  };
  const names = (params: readonly { name: string }[]) => params.map((p) => p.name);
  const problems: string[] = [];
  for (const route of app.manifest.routes) {
    const { query, form, files } = route.request;
    if (JSON.stringify([...query, ...form, ...files].map((p) => p.name).sort()) !== JSON.stringify(names(route.params).sort()))
      problems.push(`${route.key}: request parts are not a partition of its parameters`);
    const op = doc.paths[route.path][route.method.toLowerCase()];
    const documentedQuery = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    if (JSON.stringify(documentedQuery) !== JSON.stringify(names(query)))
      problems.push(`${route.key}: query ${documentedQuery} documented, ${names(query)} read`);
    const media = Object.keys(op.requestBody?.content ?? {});
    const bodySchema = op.requestBody ? doc.components.schemas[requestSchemaName(route)] : undefined;
    const documentedBody = Object.keys(bodySchema?.properties ?? {});
    if (JSON.stringify(documentedBody) !== JSON.stringify(names([...form, ...files])))
      problems.push(`${route.key}: body ${documentedBody} documented, ${names([...form, ...files])} read`);
    const expectedMedia = files.length ? ['multipart/form-data'] : form.length ? ['application/x-www-form-urlencoded', 'multipart/form-data'] : [];
    if (JSON.stringify(media) !== JSON.stringify(expectedMedia)) problems.push(`${route.key}: body media ${media}`);
    const ok = op.responses[String(route.result.options.status ?? 200)];
    if (JSON.stringify(Object.keys(ok?.content ?? {})) !== JSON.stringify([route.result.contentType]))
      problems.push(`${route.key}: answer documented as ${Object.keys(ok?.content ?? {})}, written as ${route.result.contentType}`);
  }
  t.same(problems, [], "query, form fields, files and the answer's content type agree for every route");
  const parts = app.manifest.routes.map((r) => r.request);
  t.ok(parts.some((p) => p.files.length) && parts.some((p) => p.form.length) && parts.some((p) => p.query.length), 'the manifest has routes with each part');
});

t.test('a route record is final when normalisation ends: the checker passes every one on as it is', async (t) => {
  const product = productRegistries(testConfig());
  const registries = { coercers: scalarCoercers, shapes, resolvers: { ...resolvers, ...product.registries.resolvers }, plugins: product.plugins };
  const table = normalise(readManifestFiles(defaultManifestDir()), registries);
  const checked = checkManifest(table, registries, 1);
  t.equal(checked.routes.length, table.routes.length);
  t.same(
    checked.routes.filter((route, i) => route !== table.routes[i]).map((r) => r.key),
    [],
    'the same record objects, none rebuilt',
  );
  t.ok(
    table.routes.every((r) => Object.isFrozen(r) && Object.isFrozen(r.request) && Object.isFrozen(r.result) && Object.keys(r.result.schema).length > 0),
    'frozen, with the result schema filled in',
  );
  t.same(
    table.routes.filter((r) => r.calls.length && !r.calls.every((c) => r.upstreamMethods.includes(c.method))).map((r) => r.key),
    [],
    'upstream methods known at normalisation',
  );
});

t.test('every upstream method the manifest names is implemented by the sandbox', async (t) => {
  const sandbox = createSandbox({ version: SANDBOX_VERSIONS[SANDBOX_VERSIONS.length - 1] }); // the newest plays every route
  const named = new Set(app.manifest.routes.flatMap((r) => r.upstreamMethods));
  const missing = [...named].filter((m) => !sandbox.methods.has(m)).sort();
  t.same(missing, [], `${named.size} methods named, all implemented`);
});

t.test('the removed route stays removed', async (t) => {
  t.notOk(manifestKeys.has('GET /hashtag/related'));
  t.equal((await client.request('GET', '/hashtag/related', { query: { name: 'x' } })).status, 404);
});
