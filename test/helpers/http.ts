// In-process HTTP for tests: serves an app on an ephemeral loopback port and sends real requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../engine/app.js';

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** A reply body that must be a string (a session id, a seed, a code): throws, naming the reply, when it is not. */
export function stringBody(reply: Reply): string {
  if (typeof reply.body !== 'string') throw new TypeError(`expected a string body, got ${typeof reply.body}: ${reply.status} ${reply.text.slice(0, 200)}`);
  return reply.body;
}

export interface Client {
  readonly url: string;
  request(
    method: string,
    path: string,
    options?: { query?: Record<string, unknown>; form?: Record<string, unknown>; headers?: Record<string, string>; body?: BodyInit },
  ): Promise<Reply>;
  close(): Promise<void>;
}

export async function serve(app: App): Promise<Client> {
  const server: Server = createServer(app.callback());
  // As `socialgate serve` sets it. With Node's 5 s default, a client that is busy for longer between
  // two calls (an MCP client compiles every listed tool's output schema on its next call) reuses
  // a socket the server has just closed, and that call fails with ECONNRESET.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async request(method, path, options = {}) {
      const target = new URL(path, url);
      for (const [key, value] of Object.entries(options.query ?? {})) appendAll(target.searchParams, key, value);
      let body = options.body;
      const headers = { ...(options.headers ?? {}) };
      if (options.form) {
        const form = new URLSearchParams();
        for (const [key, value] of Object.entries(options.form)) appendAll(form, key, value);
        body = form;
      }
      const response = await fetch(target, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

function appendAll(params: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined) return;
  for (const one of Array.isArray(value) ? value : [value]) params.append(key, typeof one === 'string' ? one : JSON.stringify(one));
}
