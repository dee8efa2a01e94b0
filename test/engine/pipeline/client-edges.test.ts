// What a client does wrong at the transport is answered or logged as such. A
// client that hangs up mid-body is one info line naming it (no error, no stack); a query string of
// 1 MB answers 431 with the service's error body instead of a reset connection.
import t from 'tap';
import { connect } from 'node:net';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { createLogger } from '../../../engine/log.js';
import { guardServer } from '../../../engine/app.js';
import { sleep } from '../../support/process.js';
import { poll } from '../../helpers/poll.js';

const lines: string[] = [];
const app = await composeApp(testConfig(), { log: createLogger('info', (line) => lines.push(line)) });
const server = createServer(app.callback());
guardServer(server, app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
t.teardown(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await app.close();
});

/** Writes `head` and part of a body, then closes the connection. */
async function hangUp(head: string, part: string): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head + part);
  await sleep(100);
  socket.destroy();
}

t.test('a client that hangs up mid-body is logged at info, once, without a stack', async (t) => {
  const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
    method: 'POST',
    body: new URLSearchParams({ username: 'demo', password: 'demo-password' }),
  });
  const session = (await login.json()) as string;
  const boundary = 'XyZ';
  const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n` + 'x'.repeat(5000);
  await hangUp(
    `POST /photo/upload HTTP/1.1\r\nHost: x\r\nX-Session-ID: ${session}\r\nContent-Type: multipart/form-data; ` +
      `boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n`,
    part,
  );
  await hangUp(
    'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\n',
    'username=demo&password=',
  );
  await poll(
    'two hang-ups logged',
    async () => lines.filter((l) => l.includes('hung up')).length,
    (n) => n >= 2,
    5000,
  );
  await sleep(200);
  const parsed = lines.map((line) => JSON.parse(line) as { level: string; msg: string; error?: string });
  t.same(
    parsed.filter((l) => l.level === 'error'),
    [],
    'no error line',
  );
  t.ok(
    parsed.every((l) => !String(l.error ?? '').includes('    at ')),
    'no stack',
  );
  const hangUps = parsed.filter((l) => l.msg.includes('hung up'));
  t.equal(hangUps.length, 2, 'one line for each');
  t.ok(
    hangUps.every((l) => l.level === 'info'),
    'at info',
  );
});

t.test('a 1 MB query string answers 431 with the error body', async (t) => {
  const response = await fetch(`http://127.0.0.1:${port}/user?username=${'a'.repeat(1024 * 1024)}`);
  t.equal(response.status, 431);
  t.match(await response.json(), { exc_type: 'HeaderTooLarge', detail: /query/ });
});
