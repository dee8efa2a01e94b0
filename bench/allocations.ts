// What one request costs in things that can be counted exactly: bytes allocated on V8's heap and
// promises made, for the hot path's authenticated read (bench/hotpath.ts's `GET /user`) on each of
// its servers. The throughput rounds on this machine move by 10% between rounds and between two
// processes of one build; these figures move by a few bytes, so they tell a change of a few hundred
// bytes or one promise apart where the rounds cannot (prints, asserts nothing):
//   node dist/bench/allocations.js
// Each server runs in this process with a raw-socket client that allocates little (the node:http
// row is the floor: the client's share and Node's own). Bytes: the young generation's growth over
// batches of BATCH requests, with a semi-space large enough that no scavenge falls inside a batch
// (the process re-runs itself with those flags). Promises: async_hooks' PROMISE inits per request,
// which count an `await`'s own promise as well (made only while a hook is on), so they are higher
// than a run without hooks makes; the count still moves by one for each promise a change adds.
import { spawnSync } from 'node:child_process';
import { createHook } from 'node:async_hooks';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { median } from './server-timing.js';
import { type BenchKind, startBench, type Started } from './servers.js';

const BATCH = 100;
const BATCHES = 15;
const WARM = 3000;
const FLAGS = ['--max-semi-space-size=64', '--min-semi-space-size=64'];

/** One keep-alive connection sending a request once the last answer is whole (its length learnt from the first). */
async function client(started: Started, session: string): Promise<{ one(): Promise<void>; close(): void }> {
  const request = Buffer.from(`GET ${started.path} HTTP/1.1\r\nHost: bench\r\nX-Session-ID: ${session}\r\n\r\n`);
  const socket: Socket = connect(started.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const length = await firstAnswerLength(socket, request);
  let received = 0;
  let done: () => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received >= length) done();
  });
  return {
    one: () =>
      new Promise<void>((resolve) => {
        received = 0;
        done = resolve;
        socket.write(request);
      }),
    close: () => socket.destroy(),
  };
}

async function firstAnswerLength(socket: Socket, request: Buffer): Promise<number> {
  let text = '';
  return new Promise((resolve) => {
    const read = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (end < 0 || !length || text.length < end + 4 + Number(length[1])) return;
      socket.off('data', read);
      resolve(end + 4 + Number(length[1]));
    };
    socket.on('data', read);
    socket.write(request);
  });
}

const newSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_used_size;

/** Bytes a request, the median of the batches in which no scavenge fell (the young generation only grew). */
async function bytesPerRequest(one: () => Promise<void>): Promise<number> {
  const perBatch: number[] = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    const before = newSpaceUsed();
    for (let i = 0; i < BATCH; i++) await one();
    const after = newSpaceUsed();
    if (after > before) perBatch.push((after - before) / BATCH);
  }
  return median(perBatch);
}

async function promisesPerRequest(one: () => Promise<void>): Promise<number> {
  let made = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && made++) });
  hook.enable();
  for (let i = 0; i < BATCH * 10; i++) await one();
  hook.disable();
  return made / (BATCH * 10);
}

interface Row {
  readonly server: string;
  readonly bytes: number;
  readonly promises: number;
}

async function measure(label: string, started: Started, session: string): Promise<Row> {
  const { one, close } = await client(started, session);
  for (let i = 0; i < WARM; i++) await one();
  const bytes = await bytesPerRequest(one);
  const promises = await promisesPerRequest(one);
  close();
  return { server: label, bytes, promises };
}

export async function benchAllocations(): Promise<Row[]> {
  const product = await startBench('socialgate');
  const counted = await startBench('policy');
  const rows: Row[] = [];
  for (const kind of ['node', 'koa'] as BenchKind[]) {
    const started = await startBench(kind, product);
    rows.push(await measure(kind === 'node' ? 'node:http' : 'bare Koa', started, started.session));
    started.server.close();
  }
  rows.push(await measure('socialgate (policy off)', product, product.session));
  rows.push(await measure('policy, counted session', counted, counted.session));
  rows.push(await measure('policy, session with preset off', counted, counted.uncounted!));
  return rows;
}

export function formatAllocations(rows: readonly Row[]): string {
  const floor = rows[0];
  return rows
    .map((row) => {
      const over = row === floor ? '' : ` (+${Math.round(row.bytes - floor.bytes)} over ${floor.server})`;
      return `${row.server.padEnd(32)} ${Math.round(row.bytes)} bytes${over}, ${row.promises.toFixed(1)} promise hook inits a request`;
    })
    .join('\n');
}

/** The figures, from a process of their own with a young generation that holds a whole batch (no scavenge falls inside one). */
export function allocationFigures(): string {
  const here = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, [...FLAGS, here], { encoding: 'utf8', env: { ...process.env, BENCH_ALLOCATIONS_CHILD: '1' } });
  if (child.status !== 0) throw new Error(`the allocations bench failed: ${child.stderr}`);
  return child.stdout.trimEnd();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.env.BENCH_ALLOCATIONS_CHILD === '1') process.stdout.write(`${formatAllocations(await benchAllocations())}\n`);
  else process.stdout.write(`${allocationFigures()}\n`);
  process.exit(0);
}
