// A local HTTP server on 127.0.0.1 for a whole test file: the fetch tests' other end. It notes every
// path it is asked for in `hits` (emptied before each test), so a test can prove a refusal came
// before any request reached it.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface Loopback {
  readonly base: string;
  readonly port: number;
  /** The paths asked for since the current test began. */
  readonly hits: string[];
}

export async function loopbackServer(t: Test, handle: http.RequestListener): Promise<Loopback> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handle(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  // The root test's teardown runs when the process would exit, so the server must not hold it.
  server.unref();
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  t.beforeEach(() => {
    hits.length = 0;
  });
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, port, hits };
}
