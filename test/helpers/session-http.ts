// Requests as one logged-in session: GET parameters in the query, others as form fields; `call`
// insists on a 200, `walk` follows next_cursor to the end of a PAGE route.
import type { Client, Reply } from './http.js';

// biome-ignore lint/suspicious/noExplicitAny: untyped JSON answers, read by the assertions
export type R = Record<string, any>;

export interface SessionHttp {
  request(method: string, path: string, params?: R): Promise<Reply>;
  // biome-ignore lint/suspicious/noExplicitAny: untyped JSON answers, read by the assertions
  call(method: string, path: string, params?: R): Promise<any>;
  walk(path: string, query?: R): Promise<R[]>;
}

export function sessionHttp(client: Client, headers: Record<string, string>): SessionHttp {
  const request = (method: string, path: string, params: R = {}) =>
    client.request(method, path, method === 'GET' ? { query: params, headers } : { form: params, headers });
  const call = async (method: string, path: string, params: R = {}) => {
    const reply = await request(method, path, params);
    if (reply.status !== 200) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    return reply.body as R;
  };
  const walk = async (path: string, query: R = {}) => {
    const all: R[] = [];
    let cursor = '';
    for (let pages = 0; pages < 100; pages++) {
      const page = await call('GET', path, { ...query, cursor });
      all.push(...(page.items as R[]));
      cursor = page.next_cursor as string;
      if (!cursor) return all;
    }
    throw new Error(`${path} did not end after 100 pages`);
  };
  return { request, call, walk };
}
