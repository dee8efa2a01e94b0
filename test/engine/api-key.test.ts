// The optional API key: when set, every non-system route needs it (Authorization: Bearer or
// X-API-Key), login included; system routes stay open for probes; the key never shows in answers.
import t from 'tap';
import { composeApp } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { serve } from '../helpers/http.js';

const KEY = 'k3y-for-tests-0123456789';
const http = await serve(await composeApp(testConfig({ apiKey: KEY })));
t.teardown(() => http.close());
const form = { username: 'demo', password: 'demo-password' };

t.test('every non-system route requires the key', async (t) => {
  const bare = await http.request('POST', '/auth/login', { form });
  t.match(bare, { status: 401, body: { exc_type: 'ApiKeyRequired' } });
  t.notOk(bare.text.includes(KEY));
  t.match(await http.request('POST', '/auth/login', { form, headers: { 'x-api-key': 'wrong' } }), { status: 401 });
  t.match(await http.request('GET', '/auth/totp/code', { query: { seed: 'JBSWY3DPEHPK3PXP' } }), { status: 401 }, 'session-less routes too');
  const sid = (await http.request('POST', '/auth/login', { form, headers: { authorization: `Bearer ${KEY}` } })).body as string;
  t.match(sid, /^[A-Za-z0-9_-]{32}$/, 'Bearer works');
  t.equal((await http.request('GET', '/account', { headers: { 'x-api-key': KEY, 'x-session-id': sid } })).status, 200, 'X-API-Key works');
  t.equal((await http.request('GET', '/account', { headers: { 'x-session-id': sid } })).status, 401, 'a session id is not enough');
});

t.test('system and documentation routes stay open (as the README says), nothing else', async (t) => {
  for (const path of ['/health', '/ready', '/build', '/deps', '/openapi.json', '/docs', '/docs/assets/swagger-ui.css']) {
    t.equal((await http.request('GET', path)).status, 200, `${path} open`);
  }
  t.equal((await http.request('GET', '/metrics')).status, 401, '/metrics needs the key (it names pools) unless SOCIALGATE_METRICS_OPEN=1');
  t.equal((await http.request('GET', '/docsx')).status, 401, 'a path merely starting with /docs is not open');
  t.equal((await http.request('GET', '/nowhere')).status, 401, 'unknown paths need the key too (no route listing without it)');
});
