// What the policy's tests share: an upstream that counts the calls it is sent, a logged-in demo
// session, and a route's documented example sent over HTTP.
import type { App } from '../../engine/app.js';
import type { RouteSpec, UpstreamAdapter } from '../../engine/types.js';
import { createSandbox } from '../../adapters/upstream/sandbox/index.js';
import { exampleRequest } from './examples.js';
import { serve, stringBody, type Client, type Reply } from './http.js';

/** The sandbox, with every upstream call's method name pushed to `calls`. */
export function countingSandbox(seed = 1): { upstream: UpstreamAdapter; calls: string[] } {
  const sandbox = createSandbox({ seed });
  const calls: string[] = [];
  const upstream = new Proxy(sandbox, {
    get(target, prop) {
      if (prop !== 'open') return Reflect.get(target, prop) as unknown;
      return async (options: Parameters<typeof sandbox.open>[0]) => {
        const client = await target.open(options);
        return new Proxy(client, {
          get: (c, p) =>
            p === 'call' ? (m: string, k: Record<string, unknown>, o?: unknown) => (calls.push(m), c.call(m, k, o as never)) : (Reflect.get(c, p) as unknown),
        });
      };
    },
  });
  return { upstream, calls };
}

/** Serves the app and logs the sandbox's demo account in: the client and the session's headers. */
export async function servedWithSession(app: App): Promise<{ http: Client; as: Record<string, string> }> {
  const http = await serve(app);
  const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } }));
  return { http, as: { 'x-session-id': session } };
}

/** Sends the route's documented example (files left out: the table picks routes without them). */
export function sendExample(http: Client, route: RouteSpec, headers: Record<string, string>): Promise<Reply> {
  const { fields } = exampleRequest(route);
  return route.method === 'GET'
    ? http.request(route.method, route.path, { query: fields, headers })
    : http.request(route.method, route.path, { form: fields, headers });
}

/** PATCH /policy with JSON-encoded limits; throws unless it answers 200. */
export async function patchPolicy(http: Client, headers: Record<string, string>, form: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await http.request('PATCH', '/policy', { form: { ...form, ...(form.limits ? { limits: JSON.stringify(form.limits) } : {}) }, headers });
  if (reply.status !== 200) throw new Error(`PATCH /policy answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  return reply.body as Record<string, unknown>;
}
