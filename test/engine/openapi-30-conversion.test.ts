// /openapi.json?version=3.0 is a faithful OpenAPI 3.0 down-conversion, and a client in a
// second language made from it works. No Java generator can be had offline here (swagger-codegen-cli and
// @openapitools/openapi-generator-cli on npm download their jar when installed or run, and Maven Central is
// not reachable), so the client is Perl's OpenAPI::Client (Debian's libopenapi-client-perl, installed by
// test/support/perl-openapi.sh): it reads OpenAPI 3.0 only, validates the document, builds one method per
// operation id and validates each request against it. It logs in, reads a profile and walks a paged list.
import t from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { product } from '../helpers/full-app.js';
import { fromRoot } from '../helpers/root.js';

type Node = Record<string, unknown>;
t.setTimeout(300_000); // the Perl validator reads the 1 MB document in tens of seconds on a busy machine

const { app, client } = await product({ extra: { WATCH_FLOOR_SECONDS: '7' } });
t.teardown(() => client.close());
const served = await client.request('GET', '/openapi.json', { query: { version: '3.0' } });
const doc = served.body as { openapi: string; paths: Record<string, Record<string, Node>>; components: { schemas: Record<string, Node> } };
const original = app.openapi as { paths: Record<string, Record<string, Node>> };

/** Every schema-position problem a 3.0 reader would trip on. */
function only30(node: unknown, where: string, problems: string[]): void {
  if (Array.isArray(node)) {
    for (const [i, one] of node.entries()) only30(one, `${where}/${i}`, problems);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (Array.isArray(n.type)) problems.push(`${where}: a list of types`);
  if (n.type === 'null') problems.push(`${where}: type null`);
  if (typeof n.$ref === 'string' && Object.keys(n).length > 1) problems.push(`${where}: a $ref with siblings`);
  for (const key of ['const', 'if', 'then', 'else', 'contentMediaType', 'prefixItems'])
    if (key in n && where.includes('schema')) problems.push(`${where}: ${key}`);
  if (Array.isArray(n.examples) && where.includes('schema')) problems.push(`${where}: examples`);
  for (const [key, value] of Object.entries(n)) only30(value, `${where}/${key}`, problems);
}

t.test('the 3.0 document says what the 3.1 one says, in 3.0', async (t) => {
  t.equal(served.status, 200);
  t.equal(doc.openapi, '3.0.3');
  const problems: string[] = [];
  only30(doc.paths, '#/paths', problems);
  only30(doc.components.schemas, '#/components/schemas', problems);
  t.same(problems.slice(0, 10), [], 'nothing of 3.1 is left');
  const operations = (d: { paths: Record<string, Record<string, Node>> }) =>
    Object.entries(d.paths)
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, op]) => `${method} ${path} ${op.operationId} ${Object.keys(op.responses as Node).join(',')}`),
      )
      .sort();
  t.same(operations(doc), operations(original), 'the same operations, ids and answers');
  const forms = Object.values(doc.paths)
    .flatMap((item) => Object.values(item))
    .filter((op) => op.requestBody);
  const twice = forms.filter((op) => Object.keys((op.requestBody as { content: Node }).content).length !== 1).map((op) => op.operationId);
  t.ok(forms.length > 100, `${forms.length} operations take a form`);
  t.same(twice, [], 'each in one media type, so a generator writes each field into one body');
  const watch = doc.components.schemas.PostEventsWatchRequest as { properties: Record<string, Node> };
  t.equal(watch.properties.interval_seconds.minimum, 7, 'the configured bounds come along');
  const login = doc.components.schemas.PostAuthLoginRequest as { properties: Record<string, Node>; required: string[] };
  t.same(login.required, ['username', 'password']);
});

const install = spawnSync('sh', [fromRoot('test', 'support', 'perl-openapi.sh')], { encoding: 'utf8', timeout: 600_000 });
const skip =
  install.status === 0 ? false : `OpenAPI::Client is missing and test/support/perl-openapi.sh could not install it: ${(install.stderr || '').slice(-300)}`;
t.test('a Perl client made from it logs in, reads a profile and walks a paged list', { skip }, async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'openapi30-')), 'openapi.json');
  writeFileSync(file, served.text);
  const script = fromRoot('test', 'fixtures', 'openapi30-client.pl');
  const { stdout } = await promisify(execFile)('perl', [script, client.url, file], { timeout: 240_000 });
  const run = JSON.parse(stdout.trim().split('\n').pop()!) as {
    methods: number;
    login_status: string;
    login_sent: string;
    profile_status: string;
    profile_username: string;
    pages: { status: string; users: string[]; next: string }[];
  };
  t.equal(run.methods, 3, 'the client has a method per operation id');
  t.equal(Number(run.login_status), 200, 'login');
  const sent = new URLSearchParams(run.login_sent);
  t.same([sent.getAll('username'), sent.getAll('password')], [['demo'], ['demo-password']], 'each form field sent once');
  t.equal(Number(run.profile_status), 200, 'a profile');
  t.equal(run.profile_username, 'demo_2fa');
  t.equal(run.pages.length, 2, 'two pages of followers');
  t.ok(
    run.pages.every((p) => Number(p.status) === 200 && p.users.length === 5),
    'five followers each',
  );
  t.equal(new Set(run.pages.flatMap((p) => p.users)).size, 10, 'the second page goes on from the first');
});
