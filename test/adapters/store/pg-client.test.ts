// pg clients the service does not make itself (BullMQ's LISTEN client) still never leave a server's
// error unheard. A fake server speaks just enough of PostgreSQL's protocol to end a connection the
// way a shutting-down server does, at the moment that once took a full test run down: in the same
// read as the connection became ready (57P01 from outage.test's stopped server, under load). Without
// keepClientErrorsHeard's connect guard the process dies here with an unhandled 'error' event.
import t, { type Test } from 'tap';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import pg from 'pg';
import { PostgresConnection } from 'bullmq';
import { keepClientErrorsHeard } from '../../../adapters/store/pg-client.js';

const FATAL = fields({ S: 'FATAL', C: '57P01', M: 'terminating connection due to administrator command' });
const READY = Buffer.concat([message('R', Buffer.alloc(4)), message('Z', Buffer.from('I'))]); // AuthenticationOk, ReadyForQuery

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function fields(values: Record<string, string>): Buffer {
  const text = Object.entries(values).map(([code, value]) => `${code}${value}\0`);
  return message('E', Buffer.from(`${text.join('')}\0`));
}

/** A server answering every startup with `answer`; its URL. */
async function fakeServer(t: Test, answer: (socket: Socket) => void): Promise<string> {
  const server = createServer((socket) => socket.once('data', () => answer(socket)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return `postgres://someone@127.0.0.1:${(server.address() as { port: number }).port}/db`;
}

keepClientErrorsHeard();

t.test("BullMQ's LISTEN client ended in the same read as it became ready: the process lives", async (t) => {
  const url = await fakeServer(t, (socket) => socket.end(Buffer.concat([READY, FATAL])));
  const connection = new PostgresConnection({ connectionString: url });
  const client = (await connection.getListenClient()) as pg.Client;
  await new Promise((ended) => client.once('end', ended)); // not events.once: it rejects on the 'error' the client emits first
  t.ok(client.listenerCount('error') >= 2, "its own listener came after the guard's");
  await connection.close().catch(() => undefined);
});

t.test('a listener of its own still hears the error the guard also hears', async (t) => {
  const url = await fakeServer(t, (socket) => {
    socket.write(READY);
    setTimeout(() => socket.end(FATAL), 20);
  });
  const client = new pg.Client({ connectionString: url });
  const heard = once(client, 'error');
  await client.connect();
  const [error] = (await heard) as [Error & { code?: string }];
  t.equal(error.code, '57P01');
});
