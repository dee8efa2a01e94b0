// Drift between the manifest and the MCP tools, both ways: every route marked core is a core tool;
// every route is a tool unless the rule keeps it off (the service's own areas, multipart files);
// each tool's input schema is its route's validator schema and its output the response schema;
// and a route added to a fixture manifest becomes a tool with no code.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createApp } from '../../../engine/app.js';
import { testConfig } from '../../../engine/config.js';
import { createLogger } from '../../../engine/log.js';
import { COMPONENT_PREFIX } from '../../../engine/manifest/refs.js';
import { buildTools, servedAsTool } from '../../../engine/mcp/tools.js';
import { listingFor } from '../../../engine/mcp/sets.js';
import { requestSchema } from '../../../engine/validate.js';
import type { JsonSchema, RouteSpec } from '../../../engine/types.js';
import { createStore } from '../../../adapters/store/keyv.js';
import { zipFiles } from '../../../adapters/transfer/zip.js';
import { contentTypeFor } from '../../../adapters/transfer/content-type.js';
import { product } from '../../helpers/full-app.js';
import { fakeUpstream } from '../../helpers/fake-upstream.js';
import { fixtureManifestDir, fixturePlugins } from '../../helpers/engine-app.js';
import { mcpOverHttp } from '../../helpers/mcp.js';

const { app, client } = await product({ mcpTools: 'all' });
t.teardown(() => client.close());
const entries = buildTools(app.manifest);
const byName = new Map(entries.map((entry) => [entry.name, entry]));

/** A tool schema read back as the manifest writes it: `$defs` references as component references. */
function asComponents(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asComponents);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === '$ref' ? String(value).replace('#/$defs/', COMPONENT_PREFIX) : asComponents(value)]),
  );
}

function withoutDefs(schema: JsonSchema): { body: unknown; defs: Record<string, unknown> } {
  const { $defs = {}, ...body } = schema as JsonSchema & { $defs?: Record<string, unknown> };
  return { body: asComponents(body), defs: $defs };
}

t.test("the routes that are not tools are exactly the service's own areas, multipart uploads and event streams", async (t) => {
  const off = app.manifest.routes.filter((route) => !byName.has(route.id));
  const own = new Set(['system', 'auth', 'console', 'webhooks']);
  t.same(
    off.filter((route) => !(own.has(route.area) || route.params.some((p) => p.type === 'file') || route.result.shape === 'events')).map((r) => r.key),
    [],
    'nothing else is left off',
  );
  t.ok(byName.has('postEventsWatch'), 'watching is a tool; GET /events, a stream, is not');
  t.ok(off.every((route) => !servedAsTool(route)));
  t.ok(off.some((route) => route.key === 'POST /photo/upload') && byName.has('postPhotoUploadByUrl'), 'a file upload is off, its by-URL twin is a tool');
  t.equal(entries.length + off.length, app.manifest.routes.length);
});

t.test('every route marked core is a core tool, and only those', async (t) => {
  const core = listingFor('core', entries);
  const marked = app.manifest.routes.filter((route) => route.core);
  t.same(core.tools.map((tool) => tool.name).sort(), marked.map((route) => route.id).sort());
  t.same(
    marked.filter((route) => !servedAsTool(route)).map((route) => route.key),
    [],
    'no core mark on a route that cannot be a tool',
  );
});

t.test('the endpoint lists every tool: manifest → tools and tools → manifest', async (t) => {
  const mcp = await mcpOverHttp(client.url);
  t.teardown(() => mcp.close());
  const listed = (await mcp.listTools()).tools;
  const ids = new Set(app.manifest.routes.filter(servedAsTool).map((route) => route.id));
  t.same(
    listed.map((tool) => tool.name).filter((name) => !ids.has(name)),
    [],
    'tools → manifest',
  );
  t.same(
    [...ids].filter((id) => !listed.some((tool) => tool.name === id)),
    [],
    'manifest → tools',
  );
  t.same(
    listed.find((tool) => tool.name === 'getUser'),
    JSON.parse(JSON.stringify(byName.get('getUser')!.tool)),
    'as built at boot',
  );
});

t.test("every tool's input schema is its route's validator schema, with the records it names", async (t) => {
  for (const { route, tool } of entries) {
    const { body, defs } = withoutDefs(tool.inputSchema as JsonSchema);
    t.same(body, requestSchema(route), `${route.key} input`);
    for (const [name, schema] of Object.entries(defs)) t.same(asComponents(schema), app.manifest.schemas[name], `${route.key} input $defs.${name}`);
  }
});

t.test("every tool's output schema is its route's response schema; names, descriptions, hints from the route", async (t) => {
  for (const { route, tool, link, wrapped } of entries) {
    const { body, defs } = withoutDefs(tool.outputSchema as JsonSchema);
    const expected = link
      ? body
      : wrapped
        ? { type: 'object', properties: { result: route.result.schema }, required: ['result'] }
        : (named(route) ?? route.result.schema);
    t.same(body, expected, `${route.key} output`);
    t.equal((body as JsonSchema).type, 'object', `${route.key} structured content is an object`);
    for (const [name, schema] of Object.entries(defs)) t.same(asComponents(schema), app.manifest.schemas[name], `${route.key} output $defs.${name}`);
    t.equal(tool.name, route.id);
    t.ok(tool.description!.startsWith(route.summary));
    t.same(
      [tool.annotations!.readOnlyHint, tool.annotations!.destructiveHint],
      [route.action === 'read', route.action !== 'read' && route.method === 'DELETE'],
      `${route.key} hints (from its action class)`,
    );
    t.equal(link, route.result.shape === 'file' || route.result.shape === 'files', `${route.key} answers a link only for files`);
  }
});

function named(route: RouteSpec): unknown {
  const ref = route.result.schema.$ref;
  return typeof ref === 'string' ? app.manifest.schemas[ref.slice(COMPONENT_PREFIX.length)] : undefined;
}

t.test('a route added to a fixture manifest is a tool, with no code', async (t) => {
  const dir = fixtureManifestDir();
  const fixture = async () => {
    const upstream = fakeUpstream({ gadget_info: (kwargs) => ({ pk: String(kwargs.gadget_id), name: 'a gadget' }) });
    return createApp({
      config: testConfig({ mcpTools: 'all' }),
      upstream,
      store: await createStore('memory://'),
      plugins: fixturePlugins,
      log: createLogger('silent'),
      zip: zipFiles,
      contentType: contentTypeFor,
      manifestDir: dir,
    });
  };
  const before = buildTools((await fixture()).manifest).map((entry) => entry.name);
  writeFileSync(
    join(dir, 'gadgets.yaml'),
    [
      'format: 1',
      'area: gadgets',
      'tag: { name: Gadgets }',
      'routes:',
      '  - route: GET /gadget',
      '    summary: One gadget by id',
      '    session: none',
      '    upstream: gadget_info',
      '    params:',
      '      gadget_id: { type: id, required: true }',
      '    result: { shape: object, schema: { type: object, properties: { pk: { type: string }, name: { type: string } } } }',
      '',
    ].join('\n'),
  );
  const grown = await fixture();
  const after = buildTools(grown.manifest).map((entry) => entry.name);
  t.same(
    after.filter((name) => !before.includes(name)),
    ['getGadget'],
    'one new tool',
  );
  const { serve } = await import('../../helpers/http.js');
  const http = await serve(grown);
  t.teardown(() => http.close());
  const mcp = await mcpOverHttp(http.url);
  t.teardown(() => mcp.close());
  t.ok(
    (await mcp.listTools()).tools.some((tool) => tool.name === 'getGadget'),
    'listed',
  );
  const called = await mcp.callTool({ name: 'getGadget', arguments: { gadget_id: '42' } });
  t.same(called.structuredContent, { pk: '42', name: 'a gadget' }, 'and callable');
});
