// `socialgate mcp` over stdio, as a desktop client starts it (the compiled build), against a
// running socialgate: the same tools and answers as /mcp, mapped and validation errors, the API
// key and session from flags or environment, and a fast named error while the service is down.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import t, { type Test } from 'tap';
import { FIXED } from '../../adapters/upstream/sandbox/index.js';
import { bridgeOptions } from '../../bin/mcp.js';
import { product } from '../helpers/full-app.js';
import { answerOf, errorOf, mcpOverHttp } from '../helpers/mcp.js';
import { freePort } from '../support/process.js';
import { ROOT } from '../helpers/root.js';

const root = ROOT;
const bin = join(root, 'bin', 'socialgate.js');
const skip = existsSync(join(root, 'dist', 'bin', 'cli.js')) ? false : 'dist/ is not built: run npm run build (npm test does)';
const KEY = 'k3y-for-stdio-tests-0123456789';

async function stdioClient(t: Test, args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'socialgate-stdio-tests', version: '1.0.0' });
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SOCIALGATE_'))) as Record<string, string>;
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', ...args], env: { ...inherited, ...env }, cwd: root, stderr: 'pipe' }),
  );
  t.teardown(() => client.close());
  return client;
}

t.test('options: flags over environment, checked', async (t) => {
  t.match(bridgeOptions([], { SOCIALGATE_URL: 'http://10.0.0.5:9000', SOCIALGATE_SESSION_ID: 's1' }), {
    url: new URL('http://10.0.0.5:9000/mcp'),
    sessionId: 's1',
  });
  t.match(bridgeOptions(['--url=http://h:1', '--session', 's2'], { SOCIALGATE_URL: 'http://x:2', SOCIALGATE_SESSION_ID: 's1' }), {
    url: new URL('http://h:1/mcp'),
    sessionId: 's2',
  });
  t.equal(bridgeOptions([], {}).url.href, 'http://127.0.0.1:8000/mcp');
  t.throws(() => bridgeOptions(['--sesion', 'x'], {}), /unknown option --sesion/);
  t.throws(() => bridgeOptions(['--url', 'ftp://h'], {}), /--url must be an http\(s\) URL/);
  t.throws(() => bridgeOptions(['--timeout-ms', 'soon'], {}), /--timeout-ms/);
});

t.test('over stdio: the same tools and answers as /mcp, errors mapped', { skip }, async (t) => {
  const p = await product({ apiKey: KEY });
  t.teardown(() => p.client.close());
  const login = await p.client.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' }, headers: { 'x-api-key': KEY } });
  const session = login.body as string;
  const mcp = await stdioClient(t, ['--url', p.client.url, '--session', session], { SOCIALGATE_API_KEY: KEY });
  t.equal(mcp.getServerVersion()?.name, 'socialgate', 'initialised');
  const overHttp = await mcpOverHttp(p.client.url, { 'x-api-key': KEY, 'x-session-id': session });
  t.teardown(() => overHttp.close());
  t.same((await mcp.listTools()).tools, (await overHttp.listTools()).tools, 'the list /mcp gives');

  const user = answerOf(await mcp.callTool({ name: 'getUser', arguments: { user_id: FIXED.demo } }));
  t.equal(user.username, 'demo');
  const comment = answerOf(await mcp.callTool({ name: 'getUserPosts', arguments: { user_id: FIXED.demo, amount: 1 } })).items[0];
  const posted = answerOf(await mcp.callTool({ name: 'postMediaComment', arguments: { media_id: comment.id, text: 'from an agent over stdio' } }));
  t.equal(posted.text, 'from an agent over stdio', 'a mutation');
  t.match(errorOf(await mcp.callTool({ name: 'getUser', arguments: { username: 'no_such_user_here' } })), {
    status: 404,
    exc_type: 'UserNotFound',
    hint: /no such object/,
  });
  t.match(errorOf(await mcp.callTool({ name: 'getUserFollowers', arguments: { user_id: FIXED.demo, amount: 0 } })), {
    status: 422,
    errors: [{ param: 'amount' }],
  });
});

t.test('over stdio with the service down: a fast named error, and it heals once the service is up', { skip }, async (t) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const mcp = await stdioClient(t, [], { SOCIALGATE_URL: url });
  const started = Date.now();
  const down = errorOf(await mcp.callTool({ name: 'getAccount', arguments: {} }));
  t.match(down, { status: 503, exc_type: 'ServiceUnreachable', detail: new RegExp(`socialgate at ${url} did not answer`) });
  t.ok(Date.now() - started < 5000, 'fast');
  await t.rejects(mcp.listTools(), /did not answer/, 'listing says so too');

  const p = await product();
  t.teardown(() => p.client.close());
  const { createServer } = await import('node:http');
  const server = createServer(p.app.callback());
  server.keepAliveTimeout = 65_000; // as `socialgate serve` sets it (see test/helpers/http.ts)
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  t.ok((await mcp.listTools()).tools.length > 0, 'the next call reaches the service');
  t.match(errorOf(await mcp.callTool({ name: 'getAccount', arguments: {} })), { status: 401, exc_type: 'SessionRequired' }, 'and no session was configured');
});
