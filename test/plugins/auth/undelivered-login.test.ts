// A login is stored only when its id can be delivered: a client that hangs up before the answer is
// written leaves no session behind (a logged-in account nobody could use or revoke by id), while an
// answered login keeps its session. The sandbox's latency keeps the login running past the hang-up.
import { connect } from 'node:net';
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serve } from '../../helpers/http.js';

const app = await composeApp(testConfig({ extra: { SANDBOX_LATENCY_MS: '150' } }));
const client = await serve(app);
t.teardown(() => client.close());

async function stored(): Promise<number> {
  let count = 0;
  for await (const _ of app.services.store.list()) count++;
  return count;
}

/** Sends a whole login request, then hangs up before the answer can come. */
function loginAndHangUp(): Promise<void> {
  const body = 'username=demo&password=demo-password';
  const { port } = new URL(client.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      setTimeout(() => socket.destroy(), 30);
    });
    socket.on('close', () => resolve());
  });
}

t.test('a hung-up login leaves no session; an answered one keeps its own', async (t) => {
  await loginAndHangUp();
  await new Promise((resolve) => setTimeout(resolve, 600)); // the login finishes on the server meanwhile
  t.equal(await stored(), 0, 'the session made for the departed client is gone');
  const answered = await client.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
  t.equal(answered.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(await stored(), 1, 'a delivered login stays');
  t.equal((await client.request('GET', '/account', { headers: { 'x-session-id': answered.body as string } })).status, 200);
});
