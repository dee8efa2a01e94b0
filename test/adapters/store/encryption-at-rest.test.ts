// Sessions at rest: AES-256-GCM records under HMAC'd keys, the key from SOCIALGATE_SESSION_KEY or a
// 0600 key file, a store written with another key refused, the raw SQLite file free of secrets,
// sessions that survive a restart with their proxy, locale and timezone, idle expiry, and the
// operator's `socialgate sessions list|revoke`.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApp } from '../../../bin/compose.js';
import { runSessions } from '../../../bin/sessions.js';
import { testConfig } from '../../../engine/config.js';
import type { Config, SessionRecord } from '../../../engine/types.js';
import { encryptingCodec } from '../../../adapters/store/crypto.js';
import { expiryFor, openStore } from '../../../adapters/store/index.js';
import { createStore } from '../../../adapters/store/keyv.js';
import { loadSessionKey, parseKey } from '../../../adapters/store/key.js';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import { serve } from '../../helpers/http.js';
import { probeUpstream } from '../../support/probe-upstream.js';

const record: SessionRecord = {
  id: 'Zq3xk3b6bq1bJ0uXr3l2tY8mC0m6Yv1d',
  account: { pk: '5000000001', username: 'demo' },
  settings: { cookies: { sessionid: '5000000001%3Asecret%3A28' }, uuids: { uuid: 'u-1' } },
  proxy: 'http://user:hunter2@127.0.0.1:3128',
  state: 'active',
  createdAt: 1,
  lastUsedAt: 2,
};
const tempDir = () => mkdtempSync(join(tmpdir(), 'sg-store-'));

t.test('codec: round trip; another key, a moved record or a flipped bit does not decrypt', async (t) => {
  const codec = encryptingCodec(randomBytes(32));
  const key = codec.key(record.id);
  t.notMatch(key, record.id, 'the store key is not the id');
  t.equal(codec.key(record.id), key, 'and is stable');
  t.not(encryptingCodec(randomBytes(32)).key(record.id), key, 'and keyed');
  const text = codec.encode(record, key);
  t.same(codec.decode(text, key), record);
  t.not(codec.encode(record, key), text, 'a fresh IV per write');
  for (const secret of ['demo', 'hunter2', 'secret', 'uuid', record.id]) t.notOk(text.includes(secret), `no "${secret}" in the ciphertext`);
  t.throws(() => encryptingCodec(randomBytes(32)).decode(text, key), { name: 'CodecError' });
  t.throws(() => codec.decode(text, codec.key('another id')), { name: 'CodecError' }, 'bound to its key');
  const flipped = text.slice(0, 20) + (text[20] === 'A' ? 'B' : 'A') + text.slice(21);
  t.throws(() => codec.decode(flipped, key), { name: 'CodecError' });
  t.throws(() => codec.decode(JSON.stringify(record), key), { name: 'CodecError' }, 'plain JSON is not accepted');
});

t.test('key: SOCIALGATE_SESSION_KEY as hex or base64; a key file made once with mode 0600', async (t) => {
  const raw = randomBytes(32);
  t.same(parseKey(raw.toString('hex'), 'K'), raw);
  t.same(parseKey(raw.toString('base64'), 'K'), raw);
  t.same(parseKey(raw.toString('base64url'), 'K'), raw);
  t.throws(() => parseKey('c2hvcnQ=', 'SOCIALGATE_SESSION_KEY'), /SOCIALGATE_SESSION_KEY must be 32 bytes/);
  const dir = join(tempDir(), 'data');
  t.throws(() => loadSessionKey({ dataDir: dir, create: false }), /no session key/);
  const made = loadSessionKey({ dataDir: dir, create: true });
  t.equal(statSync(join(dir, 'session.key')).mode & 0o777, 0o600);
  t.same(loadSessionKey({ dataDir: dir, create: true }), made, 'the next start reads the same key');
  t.same(loadSessionKey({ setting: raw.toString('hex'), dataDir: dir, create: true }), raw, 'the setting wins');
  chmodSync(join(dir, 'session.key'), 0o644);
  t.throws(() => loadSessionKey({ dataDir: dir, create: true }), /can be read by other users/);
});

t.test('key: SOCIALGATE_SESSION_KEY_FILE names a mounted key (a container secret), read as the setting is', async (t) => {
  const raw = randomBytes(32);
  const dir = tempDir();
  const file = join(dir, 'secret');
  writeFileSync(file, raw.toString('base64') + '\n', { mode: 0o444 });
  t.same(loadSessionKey({ file, dataDir: join(dir, 'data'), create: true }), raw, 'a read-only secret mount is accepted');
  t.notOk(existsSync(join(dir, 'data', 'session.key')), 'no key file is made in the data folder');
  t.throws(
    () => loadSessionKey({ file: join(dir, 'missing'), dataDir: dir, create: true }),
    /SOCIALGATE_SESSION_KEY_FILE names .*missing, which cannot be read \(ENOENT\)/,
  );
  writeFileSync(file, 'c2hvcnQ=');
  t.throws(() => loadSessionKey({ file, dataDir: dir, create: true }), /SOCIALGATE_SESSION_KEY_FILE \(.*\) must be 32 bytes/);
  t.throws(() => loadSessionKey({ setting: raw.toString('hex'), file, dataDir: dir, create: true }), /not both/);
});

t.test('a memory store needs no key file; a store written with another key is refused', async (t) => {
  const dir = tempDir();
  const memory = await openStore(testConfig({ dataDir: dir }));
  await memory.close();
  t.notOk(existsSync(join(dir, 'session.key')));
  const config = testConfig({ dataDir: dir, store: `sqlite://${join(dir, 'sessions.sqlite')}` });
  const store = await openStore(config);
  await store.set(record);
  await store.close();
  const other: Config = { ...config, extra: { SESSION_KEY: randomBytes(32).toString('hex') } };
  await t.rejects(openStore(other), /written with another session key/);
  const again = await openStore(config);
  t.same(await again.get(record.id), record, 'the right key reads it');
  await again.close();
});

t.test('SQLite through the service: no secret in the raw files; sessions survive a restart with their client options', async (t) => {
  const dir = tempDir();
  const config = testConfig({ dataDir: dir, store: `sqlite://${join(dir, 'sessions.sqlite')}` });
  const first = probeUpstream(createSandbox({ seed: 1 }));
  let http = await serve(await composeApp(config, { upstream: first.adapter }));
  const proxy = 'http://proxyuser:proxypass@127.0.0.1:3128';
  const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password', proxy, locale: 'pt_PT', timezone: '3600' } });
  t.equal(login.status, 200, login.text);
  const sid = login.body as string;
  type Export = { authorization_data: { sessionid: string }; uuids: { uuid: string } }; // what the secrets below read of it
  const settings = (await http.request('GET', '/auth/settings', { headers: { 'x-session-id': sid } })).body as Export;
  await http.close();

  const raw = readdirSync(dir)
    .filter((name) => name.startsWith('sessions.sqlite'))
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
  t.ok(raw.length > 0);
  const secrets = {
    username: 'demo',
    password: 'demo-password',
    cookie: settings.authorization_data.sessionid,
    uuid: settings.uuids.uuid,
    session_id: sid,
    proxy_password: 'proxypass',
    settings_key: 'authorization_data',
    account_pk: '5000000001',
  };
  for (const [name, secret] of Object.entries(secrets)) t.notOk(raw.includes(secret), `the raw store holds no ${name}`);
  t.equal(statSync(join(dir, 'session.key')).mode & 0o777, 0o600, 'key file made on first start, 0600');

  const second = probeUpstream(createSandbox({ seed: 1 }));
  http = await serve(await composeApp(config, { upstream: second.adapter }));
  t.teardown(() => http.close());
  const account = await http.request('GET', '/account', { headers: { 'x-session-id': sid } });
  t.match(account, { status: 200, body: { username: 'demo' } }, 'the session survived the restart');
  t.match(second.opened, [{ proxy, locale: 'pt_PT', timezone: 3600 }], 'the restored client got proxy, locale and timezone');
  t.equal(second.count('login'), 0, 'restored without logging in again');
});

t.test('idle sessions expire; logged-out records stay a day', async (t) => {
  const ttl = expiryFor(30);
  const now = Date.now();
  const left = ttl({ ...record, lastUsedAt: now })!;
  t.ok(Math.abs(left - 30 * 86_400_000) < 1000);
  t.equal(ttl({ ...record, lastUsedAt: now - 31 * 86_400_000 }), 1000, 'already idle too long: gone at once');
  t.equal(ttl({ ...record, state: 'logged_out' }), 86_400_000);
  const store = await openStore(testConfig());
  await store.set({ ...record, lastUsedAt: now - 90 * 86_400_000 - 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.equal(await store.get(record.id), undefined, 'an idle record is gone');
  await store.close();
});

t.test('socialgate sessions list, revoke and label: no secrets; prefixes that paste back; last used first', async (t) => {
  const dir = tempDir();
  const env = { SOCIALGATE_DATA_DIR: dir, SOCIALGATE_STORE: `sqlite://${join(dir, 'sessions.sqlite')}` };
  let out = '';
  const write = (text: string) => void (out += text);
  await t.rejects(runSessions(['list'], write, env), /no session key/, 'the CLI never makes a key');
  t.notOk(existsSync(join(dir, 'session.key')));
  const app = await composeApp(testConfig({ dataDir: dir, store: env.SOCIALGATE_STORE, sessionCacheTtlMs: 0 }));
  const http = await serve(app);
  t.teardown(() => http.close());
  t.equal(await runSessions(['list'], write, env), 0);
  t.equal(out, 'No sessions in this store. Log an account in with POST /auth/login (or the console).\n', 'an empty store says so');
  const login = async (username: string) => (await http.request('POST', '/auth/login', { form: { username, password: 'demo-password' } })).body as string;
  const sid = await login('demo');
  const throttled = await login('demo_throttled');
  const second = await login('demo');
  await http.request('GET', '/account', { headers: { 'x-session-id': throttled } });
  // demo's first session is the one used last: it must come first.
  const first = (await app.services.store.get(sid))!;
  await app.services.store.set({ ...first, lastUsedAt: Date.now() + 60_000 });

  const listed = async () => {
    out = '';
    t.equal(await runSessions(['list'], write, env), 0);
    return out
      .trim()
      .split('\n')
      .slice(1, -1)
      .map((line) => line.split('\t'));
  };
  let rows = await listed();
  t.match(out, /^ID PREFIX\tACCOUNT\tLABEL\tSTATE\tPROXY\tCREATED\tLAST USED\n/);
  t.same(rows.map((r) => r[1]).sort(), ['demo', 'demo', 'demo_throttled'], 'one row a session');
  t.ok(sid.startsWith(rows[0][0]), 'the session used last comes first');
  const lastUses = rows.map((r) => Date.parse(r[6]));
  t.same(
    lastUses,
    [...lastUses].sort((a, b) => b - a),
    'sorted by last use, newest first',
  );
  t.notOk(out.includes('…'), 'no ellipsis: a prefix is pasted back as printed');
  t.match(rows.find((r) => r[1] === 'demo_throttled')![3], /^throttled until \d{4}-/);
  t.match(out, /3 session\(s\), most recently used first/);
  t.notOk(
    [sid, throttled, second].some((id) => out.includes(id)),
    'never a whole id',
  );
  t.notMatch(out, /sessionid|%3A|password/);

  const secondPrefix = rows.find((r) => second.startsWith(r[0]))![0];
  t.equal(await runSessions(['label', secondPrefix, 'phone', 'farm', '2'], write, env), 0, 'the printed prefix is taken back');
  const stale = (await app.services.store.get(throttled))!;
  await app.services.store.set({ ...stale, throttledUntil: Date.now() - 1000 });
  rows = await listed();
  t.equal(rows.find((r) => r[0] === secondPrefix)![2], 'phone farm 2', 'the label shows on its row');
  t.equal(rows.find((r) => r[1] === 'demo_throttled')![3], 'active', 'a throttle whose pause ended reads active');

  out = '';
  t.equal(await runSessions(['revoke', 'short'], write, env), 2, 'a prefix under 8 characters is refused');
  t.match(out, /"short" is too short: give at least 8 characters of the session id/, 'saying why, not that nothing matches');
  const sidPrefix = rows.find((r) => sid.startsWith(r[0]))![0];
  t.equal(await runSessions(['revoke', sidPrefix, '--store', env.SOCIALGATE_STORE], write, env), 0);
  t.match(out, new RegExp(`revoked ${sidPrefix} \\(demo\\)`));
  t.match(await http.request('GET', '/account', { headers: { 'x-session-id': sid } }), { status: 401 });
  t.equal((await http.request('GET', '/account', { headers: { 'x-session-id': second } })).status, 200, 'the other sessions are untouched');
});

t.test('a tampered record reads as missing: the request is a 401, never a 500', async (t) => {
  const dir = tempDir();
  const key = randomBytes(32);
  const url = `sqlite://${join(dir, 'sessions.sqlite')}`;
  const codec = encryptingCodec(key);
  const forger = await createStore(url, { codec: { ...codec, encode: (r, k) => codec.encode(r, k).slice(0, -4) + 'AAAA' } });
  await forger.set(record);
  await forger.close();
  const config = testConfig({ dataDir: dir, store: url, extra: { SESSION_KEY: key.toString('base64') } });
  const store = await openStore(config);
  t.equal(await store.get(record.id), undefined);
  await store.close();
  const http = await serve(await composeApp(config));
  t.teardown(() => http.close());
  t.match(await http.request('GET', '/account', { headers: { 'x-session-id': record.id } }), { status: 401, body: { exc_type: 'SessionNotFound' } });
});

t.test('expired records are swept from a SQLite file nobody reads them from', async (t) => {
  const dir = tempDir();
  const path = join(dir, 'sessions.sqlite');
  const { createStore } = await import('../../../adapters/store/keyv.js');
  const store = await createStore(`sqlite://${path}`, { ttl: (r) => (r.id === 'stale' ? 50 : undefined), sweepMs: 0 });
  await store.set({ ...record, id: 'stale' });
  await store.set({ ...record, id: 'fresh' });
  const rows = async () => Number(await sqliteCount(path));
  t.equal(await rows(), 2, 'both written');
  await new Promise((resolve) => setTimeout(resolve, 120));
  t.equal(await rows(), 2, 'keyv alone leaves the expired row in the file');
  t.equal(await store.sweep(), 1, 'the sweep keeps the live record');
  t.equal(await rows(), 1, 'and deletes the expired row');
  t.equal((await store.get('fresh'))?.id, 'fresh');
  await store.close();
});

/** Rows of the sessions table, read with the sqlite3 driver itself (not through keyv). */
async function sqliteCount(path: string): Promise<number> {
  const { default: sqlite3 } = await import('sqlite3');
  const db = new sqlite3.Database(path);
  try {
    return await new Promise((resolve, reject) =>
      db.get("SELECT COUNT(*) AS n FROM sessions WHERE key NOT LIKE '%marker%'", (error: Error | null, row: { n: number }) =>
        error ? reject(error) : resolve(row.n),
      ),
    );
  } finally {
    db.close();
  }
}
