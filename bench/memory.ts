// Issue 15 memory figures (`npm run build && node dist/bench/memory.js [idle-seconds]`; prints,
// asserts nothing). The service runs as `socialgate serve` in a process of its own (sandbox, the
// default SQLite store), so the figures hold only what a user's service holds: no measuring code,
// no second store connection. RSS is read from /proc/PID/status:
//   - ready: right after "listening", and after one /openapi.json and one /docs;
//   - idle: after a quiet spell (V8 gives memory back to the system when it sees the process idle);
//   - loaded: 10,000 stored sessions (9,000 written to the store before the start, 1,000 logged in
//     through the API), the 1,000 live ones with a client each and one GET /user each;
//   - loaded, idle: the same after a quiet spell.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createStore } from '../adapters/store/keyv.js';
import { encryptingCodec } from '../adapters/store/crypto.js';

const KEY = 'ab'.repeat(32);
const STORED = 9000;
const LIVE = 1000;
const IDLE_SECONDS = Number(process.argv[2] ?? 30);

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The store filled the way the service would have: encrypted records, keyv's rows. */
async function fillStore(url: string): Promise<void> {
  const store = await createStore(url, { codec: encryptingCodec(Buffer.from(KEY, 'hex')), sweepMs: 0 });
  const now = Date.now();
  for (let i = 0; i < STORED; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, j) =>
        store.set({
          id: `stored-${i + j}-${'x'.repeat(24)}`,
          account: { pk: String(7_000_000_000 + i + j), username: `u${i + j}` },
          settings: { authorization_data: { ds_user_id: String(i + j), sessionid: 'stored' } },
          state: 'active',
          createdAt: now,
          lastUsedAt: now,
        }),
      ),
    );
  }
  await store.close();
}

async function startService(dir: string): Promise<{ proc: ChildProcess; base: string }> {
  const bin = fileURLToPath(new URL('../../bin/socialgate.js', import.meta.url));
  const proc = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, PORT: '0', SOCIALGATE_DATA_DIR: dir, SOCIALGATE_SESSION_KEY: KEY, SOCIALGATE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'], // the log goes to stderr
  });
  const base = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stderr! }).on('line', (line) => {
      const url = /"url":"([^"]+)"/.exec(line)?.[1];
      if (url) resolve(url);
    });
    proc.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  return { proc, base };
}

async function liveSessions(base: string): Promise<void> {
  for (let i = 0; i < LIVE; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const login = await fetch(`${base}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
        const session = (await login.text()).replace(/"/g, '');
        const user = await fetch(`${base}/user?username=demo`, { headers: { 'x-session-id': session } });
        if (!user.ok) throw new Error(`GET /user answered ${user.status}`);
        await user.arrayBuffer();
      }),
    );
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-memory-'));
  const figures: Record<string, string> = {};
  const note = (name: string, pid: number) => (figures[name] = `${rssMb(pid).toFixed(0)} MB`);
  try {
    await fillStore(`sqlite://${join(dir, 'sessions.sqlite')}`);
    const { proc, base } = await startService(dir);
    try {
      note('ready', proc.pid!);
      await (await fetch(`${base}/openapi.json`)).arrayBuffer();
      await (await fetch(`${base}/docs`)).arrayBuffer();
      note('ready, after /openapi.json and /docs', proc.pid!);
      await sleep(IDLE_SECONDS * 1000);
      note(`idle (${IDLE_SECONDS} s later)`, proc.pid!);
      await liveSessions(base);
      note(`${STORED + LIVE} stored, ${LIVE} live`, proc.pid!);
      await sleep(IDLE_SECONDS * 1000);
      note(`${STORED + LIVE} stored, ${LIVE} live, ${IDLE_SECONDS} s later`, proc.pid!);
    } finally {
      proc.kill('SIGTERM');
      await new Promise((resolve) => proc.once('exit', resolve));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const [name, value] of Object.entries(figures)) process.stdout.write(`${name.padEnd(44)} ${value}\n`);
}

await main();
