// The route matrix, generated from the manifest: every route without a session is 401 (where it
// needs one), with a required parameter missing is a 422 naming it, with a wrongly typed parameter
// is a 422 naming it. Valid input per route is exercised in test/manifest/catalogue-examples.test.ts.
import t from 'tap';
import type { ParamSpec, RouteSpec } from '../../engine/types.js';
import { product } from '../helpers/full-app.js';
import { SANDBOX_VERSIONS } from '../../adapters/upstream/sandbox/registry.js';

// The sandbox plays the newest aiograpi it knows, so the routes a newer library added are checked too.
const { app, client, login } = await product({ extra: { SANDBOX_VERSION: SANDBOX_VERSIONS[SANDBOX_VERSIONS.length - 1] } });
t.teardown(() => client.close());
const sid = await login();

const WRONG: Partial<Record<ParamSpec['type'], string>> = {
  integer: 'not-a-number',
  number: 'NaN-ish',
  boolean: 'maybe',
  json: '{not json',
  url: 'not a url',
  id: ' ',
};

function send(route: RouteSpec, values: Record<string, unknown>, session = true) {
  const headers: Record<string, string> = session ? { 'X-Session-ID': sid } : {};
  const fields = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  return route.method === 'GET' || route.method === 'DELETE'
    ? client.request(route.method, route.path, { query: fields, headers })
    : client.request(route.method, route.path, { form: fields, headers });
}

const problemsOf = (body: unknown) => ((body as { errors?: { param: string }[] }).errors ?? []).map((e) => e.param);

for (const route of app.manifest.routes) {
  t.test(route.key, async (t) => {
    if (route.session === 'required') {
      const reply = await send(route, {}, false);
      t.equal(reply.status, 401, 'no session → 401');
      t.equal((reply.body as { detail: string }).detail, 'Session ID required');
    }
    for (const param of route.params.filter((p) => p.required && p.type !== 'file')) {
      const reply = await send(route, {});
      t.equal(reply.status, 422, `missing ${param.name} → 422`);
      t.ok(problemsOf(reply.body).includes(param.name), `the 422 names ${param.name}`);
    }
    for (const param of route.params.filter((p) => WRONG[p.type] !== undefined && !(p.type === 'json' && p.repeated))) {
      const reply = await send(route, { [param.name]: WRONG[param.type] });
      t.equal(reply.status, 422, `${param.name} of the wrong type → 422`);
      t.ok(problemsOf(reply.body).includes(param.name), `the 422 names ${param.name}`);
    }
    if (route.area !== 'system') {
      const unknown = await send(route, { no_such_param: '1' });
      t.equal(unknown.status, 422, 'unknown parameter → 422');
      t.ok(problemsOf(unknown.body).includes('no_such_param'), 'the 422 names it');
    }
  });
}
