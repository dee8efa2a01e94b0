// No secret (password, settings export, platform cookie, session id, proxy credentials) in logs,
// metrics or error bodies: every auth flow runs, success and failure, on the sandbox at log level
// info and on the aiograpi sidecar (over the stand-in library, which logs request data, headers and
// its settings at DEBUG the way aiograpi and its HTTP stack may) with the sidecar's log at DEBUG
// joining the service log; then everything the service wrote besides its successful answers is
// searched. Unexpected errors (the 500 path, which logs the error) must not carry secrets out either.
import t, { type Test } from 'tap';
import { authenticator } from 'otplib';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { createLogger } from '../../../engine/log.js';
import type { App } from '../../../engine/app.js';
import type { SessionStore, UpstreamAdapter, UpstreamClient } from '../../../engine/types.js';
import { createStore } from '../../../adapters/store/keyv.js';
import { aiograpiOptionsFromEnv, createAiograpi } from '../../../adapters/upstream/aiograpi/index.js';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import { serve, type Reply } from '../../helpers/http.js';
import { FIXTURES } from '../../helpers/sidecar.js';

type Http = Awaited<ReturnType<typeof serve>>;

const PASSWORD = 'demo-password';
const WRONG_PASSWORD = 'Wr0ng-Passw0rd';
const PROXY_PASSWORD = 'pr0xy-s3cret';
const as = (sid: string) => ({ 'x-session-id': sid });

/** A running service, what it logged, and every error answer it gave. */
interface Service {
  readonly http: Http;
  readonly lines: string[];
  readonly errors: Reply[];
  send(method: string, path: string, options?: Parameters<Http['request']>[2]): Promise<Reply>;
}

async function start(t: Test, build: (log: ReturnType<typeof createLogger>) => Promise<App>): Promise<Service> {
  const lines: string[] = [];
  const http = await serve(await build(createLogger('info', (line) => lines.push(line))));
  t.teardown(() => http.close());
  const errors: Reply[] = [];
  const send: Service['send'] = async (method, path, options = {}) => {
    const reply = await http.request(method, path, options);
    if (reply.status >= 400) errors.push(reply);
    return reply;
  };
  return { http, lines, errors, send };
}

/** Every auth flow, success and failure; returns the secrets they involved, by name. */
async function authFlows({ send }: Service): Promise<Record<string, string>> {
  const sid = (await send('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD, proxy: `http://user:${PROXY_PASSWORD}@127.0.0.1:3128` } }))
    .body as string;
  const settings = (await send('GET', '/auth/settings', { headers: as(sid) })).body as {
    authorization_data: { sessionid: string };
    uuids: { uuid: string; phone_id: string };
  };
  const cookie = settings.authorization_data.sessionid;
  const settingsJson = JSON.stringify(settings);

  await send('POST', '/auth/login', { form: { username: 'demo', password: WRONG_PASSWORD } });
  await send('POST', '/auth/login', { form: { username: 'no_such_user_here', password: PASSWORD } });
  await send('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD } });
  await send('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD, verification_code: '000000' } });
  await send('POST', '/auth/login', { form: { username: 'demo_2fa', password: PASSWORD, verification_code: authenticator.generate('JBSWY3DPEHPK3PXP') } });
  const challenge = await send('POST', '/auth/login', { form: { username: 'demo_challenge', password: PASSWORD } });
  await send('POST', '/auth/challenge/resolve', {
    form: { last_json: JSON.stringify((challenge.body as { last_json: unknown }).last_json), security_code: '000000' },
  });
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
  return {
    password: PASSWORD,
    'wrong password': WRONG_PASSWORD,
    'proxy password': PROXY_PASSWORD,
    'platform cookie': cookie,
    'encoded cookie': decodeURIComponent(cookie),
    'settings uuid': settings.uuids.uuid,
    'settings phone id': settings.uuids.phone_id,
    'session id': sid,
    'session id by cookie': bySession,
    'imported session id': imported,
    'throttled session id': throttled,
    'session id prefix': sid.slice(0, 16),
  };
}

async function assertClean(t: Test, service: Service, secrets: Record<string, string>): Promise<void> {
  const metrics = (await service.http.request('GET', '/metrics')).text;
  t.ok(metrics.includes('socialgate_upstream_calls_total'), 'metrics were produced');
  const where = { logs: service.lines.join('\n'), metrics, 'error bodies': service.errors.map((e) => e.text + JSON.stringify([...e.headers])).join('\n') };
  for (const [place, text] of Object.entries(where)) {
    for (const [name, secret] of Object.entries(secrets)) t.notOk(text.includes(secret), `no ${name} in the ${place}`);
  }
}

t.test('sandbox, log level info: secrets stay out of logs, metrics and error bodies', async (t) => {
  const service = await start(t, (log) => composeApp(testConfig({ logLevel: 'info' }), { log }));
  const secrets = await authFlows(service);
  t.comment(`${service.lines.length} log lines written at level info`);
  t.ok(service.errors.length >= 12, `${service.errors.length} error answers collected`);
  await assertClean(t, service, secrets);
});

t.test('aiograpi sidecar with its log at DEBUG: the library logs secrets, the service log gets none', async (t) => {
  const extra = { SIDECAR_LOG_LEVEL: 'DEBUG', PYTHONPATH: FIXTURES };
  const service = await start(t, (log) => {
    // The sidecar's stderr reaches the service log through the adapter's logger.
    const upstream = createAiograpi({ ...aiograpiOptionsFromEnv(extra), restartDelayMs: 50, log });
    return composeApp(testConfig({ logLevel: 'info', upstream: 'aiograpi', extra }), { log, upstream });
  });
  const secrets = await authFlows(service);
  const sidecarLines = service.lines.filter((line) => line.includes('"aiograpi sidecar"'));
  t.comment(`${service.lines.length} log lines, ${sidecarLines.length} of them from the sidecar at DEBUG`);
  t.ok(
    sidecarLines.some((line) => line.includes('DEBUG aiograpi: private_request')),
    'the library logged request data at DEBUG',
  );
  t.ok(
    sidecarLines.some((line) => line.includes('[redacted]')),
    'and the sidecar redacted it',
  );
  t.notOk(
    sidecarLines.some((line) => line.includes('httpcore')),
    'the HTTP stack stays at WARNING, whatever the level',
  );
  t.ok(service.errors.length >= 8, `${service.errors.length} error answers collected`);
  await assertClean(t, service, secrets);
});

/** The sandbox, with a client that fails unexpectedly (a bug, not an upstream error) echoing what it was given. */
function buggyUpstream(): UpstreamAdapter {
  const sandbox = createSandbox();
  const wrap = (client: UpstreamClient): UpstreamClient => ({
    async call(method, kwargs, opts) {
      if (method === 'login' && kwargs.username === 'demo_bug') throw new TypeError(`cannot read 'pk' of undefined after login(${JSON.stringify(kwargs)})`);
      if (method === 'account_info') throw new Error(`unexpected reply for a client with settings ${JSON.stringify(await client.exportSettings())}`);
      return client.call(method, kwargs, opts);
    },
    exportSettings: () => client.exportSettings(),
    account: () => client.account(),
    close: () => client.close(),
  });
  return {
    name: sandbox.name,
    library: sandbox.library,
    open: async (options) => wrap(await sandbox.open(options)),
    ready: () => sandbox.ready(),
    close: () => sandbox.close(),
  };
}

/** A store whose reads fail with an error naming the key it was asked for (the raw session id). */
async function leakyStore(): Promise<SessionStore> {
  const store = await createStore('memory://');
  return {
    ...store,
    get: async (id) => Promise.reject(new Error(`store unreachable while reading ${id}`)),
    set: (r) => store.set(r),
    delete: (id) => store.delete(id),
    list: () => store.list(),
    ready: () => store.ready(),
    close: () => store.close(),
  };
}

t.test('an unexpected error (a 500) carries no secret into the log or the body', async (t) => {
  const service = await start(t, async (log) => composeApp(testConfig({ logLevel: 'info' }), { log, upstream: buggyUpstream(), store: await leakyStore() }));
  const bug = await service.send('POST', '/auth/login', { form: { username: 'demo_bug', password: PASSWORD } });
  t.equal(bug.status, 500, 'a bug in the login is a 500');
  const sid = (await service.send('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } })).body as string;
  const settings = (await service.send('GET', '/auth/settings', { headers: as(sid) })).body as {
    authorization_data: { sessionid: string };
    uuids: { uuid: string };
  };
  t.equal((await service.send('GET', '/account', { headers: as(sid) })).status, 500, 'a bug in a call is a 500');
  const unknown = 'QmFzZTY0LXNlc3Npb24taWQtb2YtMzItYnl0ZXM';
  t.equal((await service.send('GET', '/account', { headers: as(unknown) })).status, 500, 'a store failure is a 500');
  t.ok(service.lines.filter((line) => line.includes('unhandled error')).length >= 3, 'each 500 was logged');
  const secrets = {
    password: PASSWORD,
    'platform cookie': settings.authorization_data.sessionid,
    'settings uuid': settings.uuids.uuid,
    'session id': sid,
    'unknown session id': unknown,
  };
  t.ok(
    service.lines.some((line) => line.includes('unhandled error') && /at /.test(line)),
    'a 500 still logs where it was thrown',
  );
  await assertClean(t, service, secrets);
});
