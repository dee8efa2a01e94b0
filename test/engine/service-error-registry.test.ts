// The service's own errors against its documents, both ways (Fastify's test): every code raised in
// the source is in the registry and every code in the registry is raised somewhere; every operation
// documents the status of every code that can reach it; and what the running service answers for
// each kind of failure is a documented response of the operation it reached.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { composeApp, productModules } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { projectRoot } from '../../engine/manifest/load.js';
import { errorStatusesOf } from '../../engine/openapi.js';
import { codes as codesOf, SERVICE_ERRORS as ENGINE_ERRORS, serviceCodesFor, type ServiceErrorTable } from '../../engine/service-errors.js';
import { serve } from '../helpers/http.js';

const root = projectRoot();
/** The engine's rows and its feature modules', as the boot merges them. */
const SERVICE_ERRORS: ServiceErrorTable = { ...ENGINE_ERRORS, ...productModules().errors };
const codes = (): string[] => codesOf(SERVICE_ERRORS);
const SOURCE_DIRS = ['engine', 'plugins', 'adapters', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const sources = SOURCE_DIRS.flatMap((dir) => sourceFiles(join(root, dir))).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));

/** The codes a source raises: serviceError('Code', ...) and invalidParams (ValidationError). */
function raisedIn(text: string): string[] {
  const named = [...text.matchAll(/serviceError\(\s*'([A-Za-z]+)'/g)].map((m) => m[1]!);
  return /\binvalidParams\(/.test(text) ? [...named, 'ValidationError'] : named;
}

t.test('every code raised is in the registry, and every code in the registry is raised', async (t) => {
  const raised = new Set(sources.flatMap((s) => raisedIn(s.text)));
  for (const code of raised) t.ok(code in SERVICE_ERRORS, `${code} is a registered code`);
  for (const code of codes()) t.ok(raised.has(code), `${code} is raised somewhere`);
});

t.test('nothing outside the registry makes an HttpError with a status of its own', async (t) => {
  const makers = sources.filter((s) => /new HttpError\(/.test(s.text)).map((s) => s.path);
  t.same(makers, [join('engine', 'service-errors.ts')]);
});

t.test('every operation documents every status its codes and the upstream can answer', async (t) => {
  const app = await composeApp(testConfig({ apiKey: 'k'.repeat(32) }));
  t.teardown(() => app.close());
  const doc = app.openapi as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    info: { description: string };
    components: { responses: Record<string, { description: string }> };
  };
  const upstream = [
    ...new Set(
      Object.values(app.manifest.errors.rows)
        .map((row) => row.status)
        .concat(502),
    ),
  ];
  let checked = 0;
  for (const route of app.manifest.routes) {
    const documented = Object.keys(doc.paths[route.path]![route.method.toLowerCase()]!.responses).filter(
      (s) => s !== String(route.result.options.status ?? 200),
    ); // the success status (202 for POST /jobs)
    const expected = errorStatusesOf(route, route.area !== 'system', upstream, SERVICE_ERRORS);
    t.same(documented.sort(), [...expected].sort(), `${route.key}`);
    for (const code of serviceCodesFor(route, SERVICE_ERRORS)) {
      if (code === 'ApiKeyRequired' && route.area === 'system') continue;
      if (!documented.includes(String(SERVICE_ERRORS[code]!.status)))
        t.fail(`${route.key} can answer ${code} but does not document ${SERVICE_ERRORS[code]!.status}`);
    }
    checked++;
  }
  t.equal(checked, app.manifest.routes.length);
  for (const code of codes()) {
    const { status } = SERVICE_ERRORS[code]!;
    t.match(doc.info.description, `| ${code} | ${status} |`, `${code} is in the document's error table`);
    t.match(doc.components.responses[`Error${status}`]?.description, code, `the ${status} response names ${code}`);
  }
});

// What the running service answers for each kind of failure it decides itself, against the
// operation's documented responses. [method, path, request, code]
const CASES: [string, string, { query?: Record<string, string>; form?: Record<string, string>; headers?: Record<string, string>; body?: string }, string][] = [
  ['GET', '/user', { query: { user_id: '5000000002' } }, 'SessionRequired'],
  ['GET', '/user', { query: { user_id: '5000000002' }, headers: { 'x-session-id': 'x'.repeat(32) } }, 'SessionNotFound'],
  ['GET', '/user/followers', { query: { user_id: '5000000002', amount: '0' }, headers: { 'x-session-id': 'SID' } }, 'ValidationError'],
  ['POST', '/media/like', { form: { media_id: 'x'.repeat(3 * 1024 * 1024) }, headers: { 'x-session-id': 'SID' } }, 'PayloadTooLarge'],
  ['POST', '/photo/upload', { body: '--b\r\nbroken', headers: { 'x-session-id': 'SID', 'content-type': 'multipart/form-data; boundary=b' } }, 'MalformedBody'],
  ['PATCH', '/user', { headers: { 'x-session-id': 'SID' } }, 'MethodNotAllowed'],
  ['GET', '/no/such/route', {}, 'NoSuchRoute'],
];

t.test('what the service answers is what the operation documents', async (t) => {
  const app = await composeApp(testConfig());
  const client = await serve(app);
  t.teardown(() => client.close());
  const doc = app.openapi as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const sid = (await client.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  for (const [method, path, request, code] of CASES) {
    const headers = Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, v === 'SID' ? sid : v]));
    const reply = await client.request(method, path, { ...request, headers });
    t.equal(reply.status, SERVICE_ERRORS[code]!.status, `${method} ${path}: ${code}'s status`);
    t.match(reply.body, { exc_type: code }, `${method} ${path}: exc_type ${code}`);
    const operations = doc.paths[path];
    if (SERVICE_ERRORS[code]!.on === 'outside') t.notOk(operations, `${code} is answered where no operation is`);
    else {
      const documented = Object.values(operations ?? {}).flatMap((op) => Object.keys(op.responses));
      t.ok(documented.includes(String(reply.status)), `${method} ${path}: ${reply.status} is documented on the path`);
    }
  }
});
