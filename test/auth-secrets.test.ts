// No secret (password, settings export, platform cookie, session id, proxy credentials) in logs,
// metrics or error bodies: every auth flow runs, success and failure, with logging at its most
// verbose; then everything the service wrote besides its successful answers is searched.
import t from 'tap';
import { authenticator } from 'otplib';
import { composeApp } from '../bin/compose.js';
import { testConfig } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { serve, type Reply } from './helpers/http.js';

const lines: string[] = [];
const app = await composeApp(testConfig({ logLevel: 'info' }), { log: createLogger('info', (line) => lines.push(line)) });
const http = await serve(app);
t.teardown(() => http.close());

const PASSWORD = 'demo-password';
const PROXY_PASSWORD = 'pr0xy-s3cret';
const errors: Reply[] = [];
async function send(method: string, path: string, options: Parameters<typeof http.request>[2] = {}): Promise<Reply> {
  const reply = await http.request(method, path, options);
  if (reply.status >= 400) errors.push(reply);
  return reply;
}
const as = (sid: string) => ({ 'x-session-id': sid });

t.test('secrets stay out of logs, metrics and error bodies', async (t) => {
  const sid = (await send('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD, proxy: `http://user:${PROXY_PASSWORD}@127.0.0.1:3128` } })).body as string;
  const settings = (await send('GET', '/auth/settings', { headers: as(sid) })).body as { authorization_data: { sessionid: string }; uuids: { uuid: string; phone_id: string } };
  const cookie = settings.authorization_data.sessionid;
  const settingsJson = JSON.stringify(settings);

  await send('POST', '/auth/login', { form: { username: 'demo', password: 'Wr0ng-Passw0rd' } });
  await send('POST', '/auth/login', { form: { username: 'no_such_user_here', password: PASSWORD } });
  await send('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD } });
  await send('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD, verification_code: '000000' } });
  await send('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD, verification_code: authenticator.generate('JBSWY3DPEHPK3PXP') } });
  const challenge = await send('POST', '/auth/login', { form: { username: 'demo_challenge', password: PASSWORD } });
  await send('POST', '/auth/challenge/resolve', { form: { last_json: JSON.stringify((challenge.body as { last_json: unknown }).last_json), security_code: '000000' } });
  await send('POST', '/auth/login/by/sessionid', { form: { sessionid: cookie + 'x' } });
  const bySession = (await send('POST', '/auth/login/by/sessionid', { form: { sessionid: cookie } })).body as string;
  await send('PATCH', '/auth/settings', { form: { settings: settingsJson.slice(0, -1) } }); // malformed JSON
  await send('PATCH', '/auth/settings', { form: { settings: settingsJson.replace(cookie, cookie.slice(0, -3) + 'zzz') } }); // a dead export
  const imported = (await send('PATCH', '/auth/settings', { form: { settings: settingsJson } })).body as string;
  await send('GET', '/account', { headers: as(sid + 'x') });
  await send('GET', '/account', { query: { sessionid: sid.slice(0, -1) } });
  await send('PATCH', '/auth/relogin', { headers: as(imported) });
  const throttled = (await send('POST', '/auth/login', { form: { username: 'demo_throttled', password: PASSWORD } })).body as string;
  await send('GET', '/account', { headers: as(throttled) });
  await send('GET', '/account', { headers: as(throttled) });
  await send('GET', '/nowhere', { headers: as(sid) });

  const metrics = (await http.request('GET', '/metrics')).text;
  t.comment(`${lines.length} log lines written at level info`);
  t.ok(errors.length >= 12, `${errors.length} error answers collected`);
  t.ok(metrics.includes('socialgate_upstream_calls_total'), 'metrics were produced');
  const where = { logs: lines.join('\n'), metrics, 'error bodies': errors.map((e) => e.text + JSON.stringify([...e.headers])).join('\n') };
  const secrets = {
    password: PASSWORD, 'wrong password': 'Wr0ng-Passw0rd', 'proxy password': PROXY_PASSWORD, 'platform cookie': cookie, 'encoded cookie': decodeURIComponent(cookie),
    'settings uuid': settings.uuids.uuid, 'settings phone id': settings.uuids.phone_id, 'session id': sid, 'session id by cookie': bySession, 'imported session id': imported, 'throttled session id': throttled,
    'session id prefix': sid.slice(0, 16),
  };
  for (const [place, text] of Object.entries(where)) {
    for (const [name, secret] of Object.entries(secrets)) t.notOk(text.includes(secret), `no ${name} in the ${place}`);
  }
});
