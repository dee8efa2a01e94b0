// Named API keys with scopes, managed by `socialgate keys`
// and GET/POST/DELETE /keys, kept hashed beside the sessions; a request outside its key's scope is
// a 403 naming the scope; a key limited to accounts refuses another account's session; wrong keys
// are rate-limited per client address on every path; /metrics is behind the key (or open without
// pool names); the key's name is on the request's log lines.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { authenticator } from 'otplib';
import { composeApp } from '../../../bin/compose.js';
import { runKeys } from '../../../bin/keys.js';
import { loadConfig, testConfig } from '../../../engine/config.js';
import { createLogger } from '../../../engine/log.js';
import { serviceError } from '../../../engine/service-errors.js';
import type { Config, SessionStore } from '../../../engine/types.js';
import { createStore } from '../../../adapters/store/keyv.js';
import { PASSWORD, TOTP_SEED } from '../../../adapters/upstream/sandbox/index.js';
import { serve, stringBody, type Client } from '../../helpers/http.js';

const LEGACY = 'legacy-key-for-tests-0123456789';
const dir = await mkdtemp(join(tmpdir(), 'socialgate-keys-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const env = { SOCIALGATE_DATA_DIR: dir };

async function cli(...argv: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const code = await runKeys(argv, (chunk) => (text += chunk), env);
  return { code, text };
}

async function login(http: Client, username: string, headers: Record<string, string>): Promise<string> {
  const form: Record<string, string> = { username, password: PASSWORD };
  if (username === 'demo_2fa') form.verification_code = authenticator.generate(TOTP_SEED);
  return stringBody(await http.request('POST', '/auth/login', { form, headers }));
}

t.test('socialgate keys add, list and revoke, on the store a service shares', async (t) => {
  t.match(await cli('list'), { code: 0, text: /no named keys/ }, 'an empty list says so');
  t.match(await cli('add', 'agent', '--scope', 'read,bogus'), { code: 2, text: /--scope: .*not bogus/ }, 'an unknown scope is named');
  const added = await cli('add', 'agent', '--scope', 'read,write', '--accounts', 'demo');
  t.equal(added.code, 0);
  const key = /^(sgk_[A-Za-z0-9_-]{43})$/m.exec(added.text)?.[1];
  t.ok(key, 'the key is printed once');
  t.match(await cli('add', 'agent', '--scope', 'read'), { code: 1, text: /exists/ }, 'a name is taken once');
  const listed = await cli('list');
  t.match(listed.text, /agent\tread,write\tdemo\tany\t/);
  t.notOk(listed.text.includes(key!), 'the list never shows the key');
  const raw = await readFile(join(dir, 'sessions.sqlite'));
  t.notOk(raw.includes(Buffer.from(key!)), 'the store keeps no key, only its hash');

  const http = await serve(await composeApp(loadConfig([], { ...env, SOCIALGATE_SESSION_CACHE_TTL_MS: '0', SOCIALGATE_LOG_LEVEL: 'silent' })));
  t.teardown(() => http.close());
  t.equal((await http.request('GET', '/jobs/kinds')).status, 401, 'named keys alone make the service require one');
  t.equal((await http.request('GET', '/jobs/kinds', { headers: { authorization: `Bearer ${key}` } })).status, 200, 'the added key opens it');
  t.match(await cli('revoke', 'agent'), { code: 0, text: /revoked key "agent"/ });
  t.match(await cli('revoke', 'agent'), { code: 1, text: /no key named/ });
  t.equal((await http.request('GET', '/jobs/kinds', { headers: { 'x-api-key': key! } })).status, 200, 'with no key left the service is open again');
  await cli('add', 'other', '--scope', 'read');
  t.match(
    await http.request('GET', '/jobs/kinds', { headers: { 'x-api-key': key! } }),
    { status: 401, body: { exc_type: 'ApiKeyRequired' } },
    'a revoked key is refused',
  );
});

// One service for the rest: the legacy key, named keys added through the routes.
const lines: Record<string, unknown>[] = [];
const log = createLogger('info', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
const config: Partial<Config> = { apiKey: LEGACY, trustProxy: true, sessionCacheTtlMs: 0 };
const app = await composeApp(testConfig(config), { log, store: await failingFor('broken-session-id') });
const http = await serve(app);
t.teardown(() => http.close());
const legacy = { 'x-api-key': LEGACY };

async function addKey(form: Record<string, unknown>): Promise<Record<string, string>> {
  const reply = await http.request('POST', '/keys', { form, headers: legacy });
  if (reply.status !== 200) throw new Error(`POST /keys: ${reply.status} ${reply.text}`);
  return { 'x-api-key': (reply.body as { key: string }).key };
}

t.test("scopes: a request outside its key's scope is 403 naming the scope", async (t) => {
  const reader = await addKey({ name: 'reader', scopes: ['read'] });
  const writer = await addKey({ name: 'writer', scopes: ['read', 'write'] });
  const listed = (await http.request('GET', '/keys', { headers: legacy })).body as Record<string, unknown>[];
  t.same(listed.map((k) => k.name).sort(), ['reader', 'writer']);
  t.notOk(JSON.stringify(listed).includes(reader['x-api-key']), 'GET /keys shows no key');
  t.match(await http.request('POST', '/keys', { form: { name: 'reader', scopes: ['read'] }, headers: legacy }), {
    status: 409,
    body: { exc_type: 'ApiKeyNameTaken' },
  });
  t.match(await http.request('POST', '/keys', { form: { name: 'x', scopes: ['admin'] }, headers: legacy }), {
    status: 422,
    body: { errors: [{ param: 'scopes' }] },
  });

  const sid = await login(http, 'demo', writer);
  t.equal((await http.request('GET', '/account', { headers: { ...reader, 'x-session-id': sid } })).status, 200, 'read scope reads');
  const refused = await http.request('POST', '/media/like', { form: { media_id: '3000000001_5000000001' }, headers: { ...reader, 'x-session-id': sid } });
  t.match(refused, { status: 403, body: { exc_type: 'ApiKeyScopeMissing', detail: /needs the "write" scope; key "reader" has "read"/ } });
  t.match(
    await http.request('GET', '/keys', { headers: writer }),
    { status: 403, body: { detail: /"operator" scope/ } },
    "key administration is the operator's",
  );
  t.match(await http.request('GET', '/console/sessions', { headers: writer }), { status: 403, body: { detail: /"operator" scope/ } }, 'so is the console');
  t.match(await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD }, headers: reader }), {
    status: 403,
    body: { detail: /"write"/ },
  });
  t.match(await http.request('DELETE', '/keys', { query: { name: 'nobody' }, headers: legacy }), { status: 404, body: { exc_type: 'ApiKeyNotFound' } });
  t.equal((await http.request('DELETE', '/keys', { query: { name: 'reader' }, headers: legacy })).status, 200);
  t.equal((await http.request('GET', '/account', { headers: { ...reader, 'x-session-id': sid } })).status, 401, 'a revoked key stops at once');
});

t.test("a key limited to accounts refuses another account's session", async (t) => {
  const limited = await addKey({ name: 'demo-only', scopes: ['read', 'write'], accounts: ['demo'] });
  const demo = await login(http, 'demo', legacy);
  const other = await login(http, 'demo_2fa', legacy);
  t.equal((await http.request('GET', '/account', { headers: { ...limited, 'x-session-id': demo } })).status, 200);
  t.match(await http.request('GET', '/account', { headers: { ...limited, 'x-session-id': other } }), {
    status: 403,
    body: { exc_type: 'ApiKeyAccountNotAllowed' },
  });
  t.match(
    await http.request('POST', '/pools', { form: { name: 'mixed', sessions: [demo, other] }, headers: limited }),
    { status: 403, body: { exc_type: 'ApiKeyAccountNotAllowed' } },
    'nor can it pool one',
  );
});

t.test('wrong keys are rate-limited per client address, on every path', async (t) => {
  const from = (address: string, key: string) => ({ 'x-forwarded-for': address, 'x-api-key': key });
  for (let i = 0; i < 10; i++) t.equal((await http.request('GET', '/jobs/kinds', { headers: from('203.0.113.7', `sgk_guess-${i}`) })).status, 401);
  const limited = await http.request('GET', '/account', { headers: from('203.0.113.7', LEGACY) });
  t.match(limited, { status: 429, body: { exc_type: 'ApiKeyAttemptsExceeded' } }, 'past ten a minute, even the right key waits, unchecked');
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After');
  t.equal(
    (await http.request('POST', '/console/key', { form: { key: LEGACY }, headers: { 'x-forwarded-for': '203.0.113.7' } })).status,
    429,
    'the console form too',
  );
  t.equal((await http.request('GET', '/jobs/kinds', { headers: from('198.51.100.1', LEGACY) })).status, 200, 'another address is not affected');
  t.equal(
    (await http.request('GET', '/jobs/kinds', { headers: { 'x-forwarded-for': '198.51.100.2' } })).status,
    401,
    'a missing key is not counted as a guess',
  );
});

t.test('/metrics: behind the key, or open without pool names', async (t) => {
  const demo = await login(http, 'demo', legacy);
  t.equal((await http.request('POST', '/pools', { form: { name: 'secret-team', sessions: [demo] }, headers: legacy })).status, 200);
  t.equal((await http.request('GET', '/metrics')).status, 401, 'no key, no metrics');
  const scraped = await http.request('GET', '/metrics', { headers: legacy });
  t.match(scraped.text, /socialgate_pool_members\{pool="secret-team",state="healthy"\} 1/, 'with the key, by pool');
  const open = await serve(await composeApp(testConfig({ apiKey: LEGACY, metricsOpen: true })));
  t.teardown(() => open.close());
  const sid = await login(open, 'demo', legacy);
  await open.request('POST', '/pools', { form: { name: 'secret-team', sessions: [sid] }, headers: legacy });
  const bare = await open.request('GET', '/metrics');
  t.equal(bare.status, 200, 'SOCIALGATE_METRICS_OPEN=1: no key needed');
  t.match(bare.text, /socialgate_pool_members\{state="healthy"\} 1/);
  t.notOk(bare.text.includes('secret-team'), 'and no pool named');
});

t.test("the key's name is on the request's log lines, never the key", async (t) => {
  const named = await addKey({ name: 'logged-agent', scopes: ['read'] });
  lines.length = 0;
  const failed = await http.request('GET', '/account', { headers: { ...named, 'x-session-id': 'broken-session-id' } });
  t.equal(failed.status, 503);
  const line = lines.find((l) => l.msg === 'request failed' && l.request_id === failed.headers.get('x-request-id'));
  t.match(line, { key: 'logged-agent', status: 503 });
  await http.request('GET', '/account', { headers: { ...legacy, 'x-session-id': 'broken-session-id' } });
  t.match(lines.at(-1), { msg: 'request failed', key: 'default' }, 'the legacy key is "default"');
  t.notOk(JSON.stringify(lines).includes(named['x-api-key']), 'no key in the log');
});

/** A memory store whose read of one session id fails as a store outage (a 5xx that logs the request). */
async function failingFor(id: string): Promise<SessionStore> {
  const store = await createStore('memory://');
  const get = store.get.bind(store);
  return Object.assign(Object.create(store) as SessionStore, {
    get: (wanted: string) => (wanted === id ? Promise.reject(serviceError('StoreUnavailable', 'down for the test', { retryAfter: 1 })) : get(wanted)),
  });
}
