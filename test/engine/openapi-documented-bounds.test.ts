// Every documented bound is the enforced one. The watch interval's floor comes from
// a setting and is written into the document at boot; and every minimum and maximum the served
// document gives any operation's parameter is sent, on the sandbox, in the operation's own example
// request: none of them may be refused as invalid (422).
import t from 'tap';
import type { RouteSpec } from '../../engine/types.js';
import { product } from '../helpers/full-app.js';
import { SANDBOX_VERSIONS } from '../../adapters/upstream/sandbox/registry.js';
import { exampleFetch, missingFromExample, orderForRun } from '../helpers/examples.js';

type Schema = { type?: string; minimum?: number; maximum?: number; items?: Schema; $ref?: string; properties?: Record<string, Schema> };
type Operation = { parameters?: { name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } };
interface Bound {
  route: RouteSpec;
  param: string;
  which: 'minimum' | 'maximum';
  value: number;
  repeated: boolean;
}

const FLOOR = 5;
// The newest library the sandbox plays, so that routes for a newer aiograpi (`since`) answer too.
const { app, client, login } = await product({
  extra: { WATCH_FLOOR_SECONDS: String(FLOOR), FETCH_ALLOW: '127.0.0.1', SANDBOX_VERSION: SANDBOX_VERSIONS[SANDBOX_VERSIONS.length - 1] },
});
t.teardown(() => client.close());
const document = app.openapi as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** Each documented numeric bound of each operation, read from the served document (query parameters and form fields). */
function documentedBounds(): Bound[] {
  const bounds: Bound[] = [];
  for (const route of app.manifest.routes) {
    const operation = document.paths[route.path][route.method.toLowerCase()];
    const schemas: [string, Schema][] = (operation.parameters ?? []).map((p) => [p.name, p.schema]);
    const body = Object.values(operation.requestBody?.content ?? {})[0]?.schema;
    const form = body?.$ref ? document.components.schemas[body.$ref.split('/').pop()!] : body;
    schemas.push(...Object.entries(form?.properties ?? {}));
    for (const [param, schema] of schemas) {
      const item = schema.type === 'array' && schema.items ? schema.items : schema;
      for (const which of ['minimum', 'maximum'] as const) {
        if (typeof item[which] === 'number') bounds.push({ route, param, which, value: item[which]!, repeated: item !== schema });
      }
    }
  }
  return bounds;
}

/** The example request with one parameter at the bound (every value of a list), and without the parameters it excludes. */
async function sendAt(bound: Bound, session: { id: string }): Promise<{ status: number; text: string }> {
  const { url, init } = exampleFetch(bound.route, client.url, session.id);
  const excluded = bound.route.constraints.filter((c) => c.kind !== 'at_least_one' && c.params.includes(bound.param)).flatMap((c) => c.params);
  const fields = init.body instanceof FormData || init.body instanceof URLSearchParams ? init.body : url.searchParams;
  const count = Math.max(1, fields.getAll(bound.param).length);
  for (const name of new Set([...excluded, bound.param])) fields.delete(name);
  for (let i = 0; i < (bound.repeated ? count : 1); i++) fields.append(bound.param, String(bound.value));
  // A group the removal left empty ("name, or lat and lng") gets its other member, at its own documented bound.
  for (const group of bound.route.constraints) {
    if (group.kind === 'at_most_one' || group.params.some((name) => fields.has(name))) continue;
    const partner = bound.route.params.find((p) => group.params.includes(p.name) && !excluded.includes(p.name));
    const value = partner && (partner.example ?? partner.schema[bound.which]);
    if (partner && value !== undefined) fields.append(partner.name, String(value));
  }
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== 401) return { status: response.status, text };
  session.id = await login();
  return sendAt(bound, session);
}

const names = (text: string): string[] => ((JSON.parse(text) as { errors?: { param: string }[] }).errors ?? []).flatMap((e) => e.param.split(', '));

t.test('a bound that comes from a setting is documented as configured, and enforced there', async (t) => {
  for (const path of ['/events/watch', '/console/sessions/watch']) {
    const form =
      document.components.schemas[(document.paths[path].post.requestBody!.content['application/x-www-form-urlencoded'].schema.$ref ?? '').split('/').pop()!];
    t.equal(form.properties!.interval_seconds.minimum, FLOOR, `POST ${path}: interval_seconds documents the configured floor`);
  }
  const sid = await login();
  const watch = (seconds: number) => client.request('POST', '/events/watch', { form: { interval_seconds: seconds }, headers: { 'x-session-id': sid } });
  t.equal((await watch(FLOOR - 0.5)).status, 422, 'under the documented minimum: 422');
  t.equal((await watch(FLOOR)).status, 200, 'at the documented minimum: accepted');
});

t.test('every documented minimum and maximum is accepted by its operation', async (t) => {
  const bounds = documentedBounds();
  const order = orderForRun(app.manifest.routes);
  bounds.sort((a, b) => order.indexOf(a.route) - order.indexOf(b.route));
  t.ok(bounds.length > 40, `${bounds.length} documented bounds on ${new Set(bounds.map((b) => b.route)).size} operations`);
  const session = { id: await login() };
  const refused: string[] = [];
  const unreached = new Set<string>();
  for (const bound of bounds) {
    // A parameter of a later library version is refused whatever its value on the running one (the document says so).
    if (bound.route.params.find((p) => p.name === bound.param)?.since) continue;
    const reply = await sendAt(bound, session);
    if (reply.status !== 422) continue;
    if (names(reply.text).includes(bound.param)) refused.push(`${bound.route.key} ${bound.param}=${bound.value} (${bound.which}): ${reply.text.slice(0, 200)}`);
    else unreached.add(bound.route.key);
  }
  t.same(refused, [], 'no documented bound is refused');
  const incomplete = app.manifest.routes.filter((route) => missingFromExample(route).length).map((route) => route.key);
  t.same(
    [...unreached].filter((key) => !incomplete.includes(key)),
    [],
    'a request refused for another reason is one whose example is incomplete',
  );
  t.comment(`not reached (the example lacks what only a running service knows, as a session ref): ${[...unreached].join(', ') || 'none'}`);
});
