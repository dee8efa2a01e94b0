// What /mcp refuses: without the API key (when one is set) nothing, not even the handshake; a Host
// header that is not an allowed name (DNS rebinding) and a browser Origin from elsewhere are 403;
// the configured host names are let in.
import { request } from 'node:http';
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serve } from '../../helpers/http.js';
import { answerOf, mcpOverHttp } from '../../helpers/mcp.js';

const KEY = 'k3y-for-mcp-tests-0123456789';
const http = await serve(await composeApp(testConfig({ apiKey: KEY, mcpAllowedHosts: ['agents.example.org'] })));
t.teardown(() => http.close());
const port = new URL(http.url).port;
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST to /mcp with the headers given (Host included, which fetch would not let us set). */
function post(headers: Record<string, string>, body = INIT): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk) => (text += chunk))
          .on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : { text } }));
      },
    );
    req.on('error', reject).end(body);
  });
}

t.test('the API key protects /mcp like every route', async (t) => {
  const bare = await post({});
  t.match(bare, { status: 401, body: { exc_type: 'ApiKeyRequired' } });
  t.notOk(JSON.stringify(bare.body).includes(KEY));
  t.match(await post({ 'x-api-key': 'wrong' }), { status: 401 });
  await t.rejects(mcpOverHttp(http.url), 'the SDK client cannot even initialise without it');
  const mcp = await mcpOverHttp(http.url, { authorization: `Bearer ${KEY}` });
  t.teardown(() => mcp.close());
  t.ok((await mcp.listTools()).tools.length > 0, 'with the key it lists');
  const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' }, headers: { 'x-api-key': KEY } });
  const withSession = await mcpOverHttp(http.url, { 'x-api-key': KEY, 'x-session-id': login.body as string });
  t.teardown(() => withSession.close());
  t.equal(answerOf(await withSession.callTool({ name: 'getAccount', arguments: {} })).username, 'demo');
});

t.test('Host and Origin are checked against DNS rebinding', async (t) => {
  const key = { 'x-api-key': KEY };
  t.equal((await post({ ...key, host: `127.0.0.1:${port}` })).status, 200, 'a loopback host');
  t.equal((await post({ ...key, host: `localhost:${port}` })).status, 200, 'localhost');
  t.equal((await post({ ...key, host: 'agents.example.org' })).status, 200, 'a configured host name');
  t.match(await post({ ...key, host: `attacker.example:${port}` }), { status: 403, body: { exc_type: 'HostNotAllowed' } }, 'a rebinding host name');
  t.match(await post({ ...key, origin: 'http://attacker.example' }), { status: 403, body: { exc_type: 'OriginNotAllowed' } }, 'a foreign page');
  t.equal((await post({ ...key, origin: `http://localhost:${port}` })).status, 200, 'a local page');
  t.equal((await post({ host: 'attacker.example' })).status, 401, 'the key is asked first: a keyless caller learns nothing more');
});

t.test('a 2025-11-25 stream opens with a priming event and the retry field', async (t) => {
  const init = INIT.replace('2025-06-18', '2025-11-25');
  const { status, body } = await post({ 'x-api-key': KEY }, init);
  t.equal(status, 200);
  t.match(body.text, /^id: \S+\nretry: 1000\ndata: \n\n/, 'an event id and retry before any message');
  t.match(body.text, /event: message\nid: \S+\ndata: \{"result":\{"protocolVersion":"2025-11-25"/, 'then the answer, with its own id');
});
