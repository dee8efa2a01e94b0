// Several instances on one Redis (Debian's redis-server, installed by test/support/redis.sh when
// missing, on a free loopback port without persistence). Two real `socialgate serve` processes:
// a session made on one works on the other, one stopped with SIGTERM and started again loses no
// session, a revocation on one is seen by the other once its cached record is older than the TTL.
// In process (an upstream probe is needed): a throttle on one pauses the session on the other.
// Redis holds no secret in clear.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import { createStore } from '../../../adapters/store/keyv.js';
import { openKeyStore } from '../../../adapters/store/keys.js';
import { errorWith } from '../../helpers/assert.js';
import { poll } from '../../helpers/poll.js';
import { serve, type Client } from '../../helpers/http.js';
import { probeUpstream } from '../../support/probe-upstream.js';
import { startRedis } from '../../support/redis.js';
import { startServices } from '../../support/service.js';
import { sharedKeysScenario, sharedSessionsScenario } from '../../support/shared-store.js';

const started = Date.now();
const redis = await startRedis();
t.teardown(() => redis.stop());
const key = randomBytes(32);
const TTL_MS = 200;

async function instance(): Promise<Client> {
  // each instance has its own data folder: the key comes from the shared setting, not a file
  const dir = mkdtempSync(join(tmpdir(), 'sg-redis-instance-'));
  const config = testConfig({ store: redis.url, dataDir: dir, sessionCacheTtlMs: TTL_MS, extra: { SESSION_KEY: key.toString('base64') } });
  return serve(await composeApp(config, { upstream: createSandbox({ seed: 1 }) }));
}

const as = (sid: string) => ({ 'x-session-id': sid });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('two service processes share sessions; a restarted one loses none; revocations cross', async (t) => {
  const [a, b] = await startServices(2, { store: redis.url, key: key.toString('hex'), sessionCacheTtlMs: TTL_MS });
  t.teardown(() => Promise.all([a.dispose(), b.dispose()]));
  await sharedSessionsScenario(t, a, b, TTL_MS);
  t.equal(await listedOnRedis(), 2 + 1, 'two live sessions plus the key marker');
});

t.test('a throttle seen on one instance pauses the session on the other', async (t) => {
  const probe = probeUpstream(createSandbox({ seed: 1 }));
  const dir = mkdtempSync(join(tmpdir(), 'sg-redis-instance-'));
  const a = await instance();
  const b = await serve(
    await composeApp(testConfig({ store: redis.url, dataDir: dir, sessionCacheTtlMs: TTL_MS, extra: { SESSION_KEY: key.toString('base64') } }), {
      upstream: probe.adapter,
    }),
  );
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const sid = (await a.request('POST', '/auth/login', { form: { username: 'demo_throttled', password: 'demo-password' } })).body as string;
  t.equal((await a.request('GET', '/account', { headers: as(sid) })).status, 429);
  await wait(TTL_MS + 50);
  t.match(await b.request('GET', '/account', { headers: as(sid) }), { status: 429, body: { exc_type: 'SessionThrottled' } });
  t.equal(probe.count('account_info'), 0, 'B never called the upstream for it');
});

t.test('Redis holds no secret in clear', async (t) => {
  const a = await instance();
  t.teardown(() => a.close());
  const sid = (await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const cookie = ((await a.request('GET', '/auth/settings', { headers: as(sid) })).body as { authorization_data: { sessionid: string } }).authorization_data
    .sessionid;
  const dump = await redisCommand(['KEYS', '*']);
  const keys = dump.split('\r\n').filter((line) => line && !/^[*$]/.test(line));
  t.ok(keys.length >= 1);
  let values = '';
  for (const k of keys) values += await redisCommand(['GET', k]);
  const everything = keys.join('\n') + values;
  for (const secret of [sid, cookie, 'demo', 'authorization_data', '5000000001']) t.notOk(everything.includes(secret), `no ${secret.slice(0, 6)}… in Redis`);
  t.comment(`redis test file: ${Date.now() - started} ms so far`);
});

async function listedOnRedis(): Promise<number> {
  const reply = await redisCommand(['KEYS', 'socialgate-sessions:*']);
  return Number(/^\*(\d+)/.exec(reply)?.[1] ?? -1);
}

/** One RESP command on a fresh connection; the whole reply as text. */
function redisCommand(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port: redis.port });
    let data = '';
    socket.on('data', (chunk) => (data += String(chunk)));
    socket.on('error', reject);
    socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(''));
    setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, 100);
  });
}

t.test('named API keys are shared through Redis', (t) => sharedKeysScenario(t, redis.url));

// A background check still in flight when the app closes used to call the closed store: the Redis
// client connected again, nobody closed it, and it held the test process open for ever once the
// server stopped (store-outage hung 2 runs in 3 that way).
t.test('a store closed on Redis fails a late call instead of connecting again', async (t) => {
  const store = await createStore(redis.url, { timeoutMs: 1000 });
  const keys = await openKeyStore(redis.url, 1000);
  t.equal(await store.get('before'), undefined, 'open, it answers');
  t.same(await keys.all(), []);
  const clients = await connectedClients();
  await store.close();
  await keys.close();
  // At most: a client of an earlier test still closing may leave too, never come.
  const gone = await poll('both clients gone', connectedClients, (n) => n <= clients - 2, 5000, 50);
  t.ok(gone <= clients - 2, `both clients gone from the server (${clients} → ${gone})`);
  await t.rejects(store.get('late'), errorWith({ excType: 'StoreUnavailable' }), 'a read after the close');
  await t.rejects(store.set({ id: 'late' } as never), errorWith({ excType: 'StoreUnavailable' }), 'a write after the close');
  await t.rejects(keys.all(), errorWith({ excType: 'StoreUnavailable' }), 'a key read after the close');
  await wait(300);
  const after = await connectedClients();
  t.ok(after <= gone, `and no client came back (${after})`);
});

async function connectedClients(): Promise<number> {
  return Number(/connected_clients:(\d+)/.exec(await redisCommand(['INFO', 'clients']))?.[1] ?? -1);
}
