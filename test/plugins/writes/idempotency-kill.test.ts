// Kill -9 between the upstream call and the answer. The service runs in a child
// process (SQLite store in a temp folder) whose platform is this test's sandbox over IPC, so the
// platform outlives the kill as a real one does. The child is killed once the platform has taken a
// keyed comment and before the answer reaches it; a new process on the same store gets the keyed
// repeat: it is told to wait while the dead owner's claim runs out, then reads the comment back and
// answers it. The platform holds the comment once and was asked for it once.
import t from 'tap';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import type { UpstreamClient } from '../../../engine/types.js';
import type { UpstreamError } from '../../../engine/types.js';
import { freePort, removeFolder, tempFolder } from '../../support/process.js';
import { fromRoot } from '../../helpers/root.js';

const CHILD = fromRoot('test', 'fixtures', 'writes', 'ipc-upstream-child.mjs');
const sandbox = createSandbox({ seed: 1 });
const clients = new Map<number, UpstreamClient>();
const writes: string[] = [];
let killOn: string | undefined;

type Ask = {
  id: number;
  op: 'open' | 'call' | 'export';
  client?: number;
  settings?: Record<string, unknown>;
  method?: string;
  kwargs?: Record<string, unknown>;
};

/** The platform's side of the channel: opens clients and runs calls; kills the service once a chosen write has run. */
async function answer(child: ChildProcess, ask: Ask): Promise<void> {
  try {
    if (ask.op === 'open') {
      const client = await sandbox.open({ settings: ask.settings ?? {} });
      clients.set(clients.size + 1, client);
      return void child.send({ id: ask.id, client: clients.size, account: client.account() });
    }
    const client = clients.get(ask.client!)!;
    if (ask.op === 'export') return void child.send({ id: ask.id, result: await client.exportSettings() });
    const result = await client.call(ask.method!, ask.kwargs ?? {});
    if (ask.method === killOn) {
      writes.push(ask.method!);
      killOn = undefined;
      child.kill('SIGKILL'); // the platform did it; the answer never reaches the service
      return;
    }
    if (ask.method === 'media_comment') writes.push(ask.method);
    child.send({ id: ask.id, result, account: client.account() });
  } catch (error) {
    const e = error as UpstreamError;
    if (child.connected) child.send({ id: ask.id, error: { excType: e.excType ?? 'Exception', message: e.message, bases: e.bases ?? [] } });
  }
}

async function start(folder: string, port: number, key: string): Promise<ChildProcess> {
  const env = {
    ...process.env,
    PORT: String(port),
    SOCIALGATE_STORE: `sqlite://${folder}/sessions.sqlite`,
    SOCIALGATE_DATA_DIR: folder,
    SOCIALGATE_SESSION_KEY: key,
    SOCIALGATE_LOG_LEVEL: 'silent',
    SOCIALGATE_IDEMPOTENCY_LEASE_MS: '600',
    SOCIALGATE_SANDBOX_LIVE_SECONDS: '0',
  };
  // Plain node on the built dist: the test runner's TypeScript loader would compile the whole service again in each child.
  const child = fork(CHILD, [], { env, execArgv: [], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  child.on('message', (ask: Ask) => void answer(child, ask));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before it listened`)));
  });
  return child;
}

t.test('kill -9 after the platform took a keyed comment: the repeat on a new process reads it back, one comment', async (t) => {
  const folder = tempFolder('socialgate-idem-kill-');
  t.teardown(() => removeFolder(folder));
  const port = await freePort();
  const key = randomBytes(32).toString('hex');
  const base = `http://127.0.0.1:${port}`;
  const first = await start(folder, port, key);
  t.teardown(() => void first.kill('SIGKILL'));
  const login = await fetch(`${base}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
  const session = (await login.json()) as string;
  const text = `kill -9 ${randomUUID()}`;
  const media = '3955340313237098052_5000000001';
  const idempotency = randomUUID();
  const comment = () =>
    fetch(`${base}/media/comment`, {
      method: 'POST',
      body: new URLSearchParams({ media_id: media, text }),
      headers: { 'x-session-id': session, 'idempotency-key': idempotency },
    });

  killOn = 'media_comment';
  await t.rejects(comment(), 'the service died before answering');
  await new Promise((resolve) => first.once('exit', resolve));

  const second = await start(folder, port, key);
  t.teardown(() => void second.kill('SIGKILL'));
  let reply = await comment();
  const statuses = [reply.status];
  for (let tries = 0; reply.status === 409 && tries < 10; tries++) {
    await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after') ?? 1) * 1000));
    reply = await comment();
    statuses.push(reply.status);
  }
  t.ok(
    statuses.slice(0, -1).every((status) => status === 409),
    `told to wait while the dead owner's claim ran out: ${statuses}`,
  );
  t.equal(reply.status, 200, 'then the comment, read back');
  t.match(await reply.json(), { text });
  t.equal(reply.headers.get('idempotent-replayed'), 'true');
  const again = await comment();
  t.equal(again.status, 200, 'and replayed from then on');
  t.same(writes, ['media_comment'], 'the platform was asked once');
  const post = sandbox.world.media.get(media.split('_')[0])!;
  t.equal(post.comments.filter((pk) => sandbox.world.comments.get(pk)?.text === text).length, 1, 'it holds the comment once');
});
