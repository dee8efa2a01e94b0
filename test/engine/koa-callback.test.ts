// The service's request listener answers exactly as Koa's own callback does, for every kind of answer
// a middleware leaves (a table, each case served both ways and compared byte for byte), and reports
// the same failures to the app's 'error' listeners; only an answer the middleware wrote itself skips
// Koa's handleRequest.
import t from 'tap';
import { createServer, request, type IncomingMessage, type RequestListener } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { servedCallback } from '../../engine/koa-callback.js';

type Case = readonly [name: string, method: string, middleware: Koa.Middleware];

const CASES: readonly Case[] = [
  ['JSON body', 'GET', (ctx) => void (ctx.body = { a: 1 })],
  ['a status and a text body', 'GET', (ctx) => void ((ctx.status = 201), (ctx.body = 'made'))],
  ['nothing set: 404', 'GET', async () => undefined],
  ['a status only: 204', 'GET', (ctx) => void (ctx.status = 204)],
  ['a status only: 409', 'GET', (ctx) => void (ctx.status = 409)],
  ['HEAD of a body', 'HEAD', (ctx) => void (ctx.body = { a: 1 })],
  ['a stream', 'GET', (ctx) => void (ctx.body = Readable.from(['a', 'b', 'c']))],
  ['a redirect', 'GET', (ctx) => ctx.redirect('/elsewhere')],
  ['an HttpError thrown', 'GET', (ctx) => ctx.throw(418, 'short and stout')],
  ['an Error thrown after awaiting', 'GET', async () => Promise.reject(new Error('broken'))],
  ['a stream that fails', 'GET', (ctx) => void (ctx.body = new Readable({ read: () => process.nextTick(() => ctx.body.destroy(new Error('mid-stream'))) }))],
  [
    'written by the middleware itself',
    'GET',
    (ctx) => {
      ctx.respond = false;
      ctx.res.writeHead(202, ['Content-Type', 'text/plain', 'X-Mine', 'yes']);
      ctx.res.end('raw');
    },
  ],
];

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  errors: string[];
}

async function answer(make: (koa: Koa, middleware: Koa.Middleware) => RequestListener, [, method, middleware]: Case): Promise<Answer> {
  const koa = new Koa();
  const errors: string[] = [];
  koa.on('error', (error: Error) => errors.push(error.message));
  koa.use(middleware);
  const server = createServer(make(koa, middleware)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await new Promise<IncomingMessage | Error>((resolve) =>
      request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/', method }, resolve)
        .on('error', resolve)
        .end(),
    );
    if (res instanceof Error) return { status: 0, headers: {}, body: `the client met: ${res.message}`, errors: await settled(errors) };
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    await Promise.race([once(res, 'end'), once(res, 'aborted'), once(res, 'close')]);
    const { date: _date, ...headers } = res.headers;
    return { status: res.statusCode!, headers, body: Buffer.concat(chunks).toString(), errors: await settled(errors) };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** The app's errors once Koa has reported any it reports after the answer's end. */
async function settled(errors: string[]): Promise<string[]> {
  await new Promise((next) => setImmediate(next));
  return errors;
}

for (const each of CASES) {
  t.test(each[0], async (t) => {
    const koas = await answer((koa) => koa.callback(), each);
    const ours = await answer(servedCallback, each);
    t.same(ours, koas, `Koa: ${koas.status} ${JSON.stringify(koas.body)} ${JSON.stringify(koas.errors)}`);
  });
}

t.test("an answer the middleware writes itself is not watched by Koa's on-finished (the saving this listener exists for)", async (t) => {
  const watchers: Record<string, number> = {};
  const writesItself =
    (label: string): Koa.Middleware =>
    (ctx) => {
      watchers[label] = ctx.res.listenerCount('finish') + ctx.socket.listenerCount('error');
      ctx.respond = false;
      ctx.res.end('raw');
    };
  await answer((koa) => koa.callback(), ['', 'GET', writesItself('koa')]);
  await answer(servedCallback, ['', 'GET', writesItself('ours')]);
  t.ok(watchers.ours < watchers.koa, `listeners on the answer and its socket: ${watchers.ours} here, ${watchers.koa} under Koa's callback`);
});

t.test("an app without an 'error' listener of its own logs a failure through Koa's, as Koa's callback does", async (t) => {
  const koa = new Koa();
  const logged: string[] = [];
  koa.onerror = (error: Error) => void logged.push(error.message);
  const server = createServer(servedCallback(koa, () => Promise.reject(new Error('unheard')))).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const status = await new Promise<number>((resolve) =>
    request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/' }, (res) => resolve(res.resume().statusCode!)).end(),
  );
  t.equal(status, 500);
  t.same(logged, ['unheard'], 'logged, and the process lives');
});
