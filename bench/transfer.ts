// `node dist/bench/transfer.js`: memory of the media paths under load. The service runs in a child
// process (the sandbox upstream, every plugin) and samples its own RSS; this process streams a
// 200 MB video upload (multipart), downloads a 200 MB file and has the service fetch a 200 MB
// video by URL, and prints each one's peak RSS growth over the idle baseline. Target: < 64 MB.
// Prints figures, asserts nothing.
import { productParts } from '../bin/compose.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { truncate } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { createApp } from '../engine/app.js';
import { testConfig } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import type { UpstreamAdapter } from '../engine/types.js';
import { createStore } from '../adapters/store/keyv.js';
import { createSandbox, sandboxFileBytes } from '../adapters/upstream/sandbox/index.js';

const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_TRANSFER_MB ?? 200) * MB;
const TARGET_MB = 64;

interface Ready {
  port: number;
  session: string;
  videoPk: string;
}
interface Memory {
  baseline: number;
  peak: number;
  samples: number;
}
export interface TransferFigure {
  name: string;
  mb: number;
  seconds: number;
  status: number;
  peakGrowthMb: number;
  baselineMb: number;
  samples: number;
}

// ── the parent: drives the transfers ────────────────────────────────────────────────────────

export async function benchTransfer(): Promise<TransferFigure[]> {
  const child = spawn(process.execPath, [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), 'child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ready = (await message(child)) as Ready;
    const web = await bigFileServer();
    const figures: TransferFigure[] = [];
    figures.push(await measure(child, `upload (multipart) ${SIZE / MB} MB video`, () => uploadVideo(ready)));
    figures.push(await measure(child, `download ${SIZE / MB} MB file`, () => downloadVideo(ready)));
    figures.push(await measure(child, `by/url fetch of a ${SIZE / MB} MB video`, () => uploadByUrl(ready, web.url)));
    web.close();
    return figures;
  } finally {
    child.kill();
  }
}

async function measure(child: ChildProcess, name: string, run: () => Promise<number>): Promise<TransferFigure> {
  child.send('begin');
  await message(child);
  const started = process.hrtime.bigint();
  const status = await run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Let the service finish its cleanup before the sampling stops.
  await new Promise((resolve) => setTimeout(resolve, 200));
  child.send('end');
  const memory = (await message(child)) as Memory;
  return {
    name,
    mb: SIZE / MB,
    seconds,
    status,
    peakGrowthMb: (memory.peak - memory.baseline) / MB,
    baselineMb: memory.baseline / MB,
    samples: memory.samples,
  };
}

function message(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench child exited (${code})`)));
  });
}

/** A 200 MB MP4: the sandbox's real one-frame video, then a `free` box of zeros. */
function videoParts(): { head: Buffer; padding: number } {
  const mp4 = sandboxFileBytes('mp4', 'bench');
  const padding = SIZE - mp4.length;
  const free = Buffer.alloc(8);
  free.writeUInt32BE(padding);
  free.write('free', 4, 'latin1');
  return { head: Buffer.concat([mp4, free]), padding: padding - 8 };
}

async function writeVideo(out: NodeJS.WritableStream): Promise<void> {
  const { head, padding } = videoParts();
  const chunk = Buffer.alloc(MB);
  out.write(head);
  for (let left = padding; left > 0; left -= chunk.length) {
    if (!out.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(out, 'drain');
  }
}

async function uploadVideo(ready: Ready): Promise<number> {
  const boundary = `sgbench${Date.now()}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; ` +
      `name="caption"\r\n\r\nbench\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = http.request({
    host: '127.0.0.1',
    port: ready.port,
    method: 'POST',
    path: '/video/upload',
    headers: {
      'x-session-id': ready.session,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': preamble.length + SIZE + epilogue.length,
    },
  });
  const response = once(req, 'response') as Promise<[http.IncomingMessage]>;
  req.write(preamble);
  await writeVideo(req);
  req.end(epilogue);
  const [res] = await response;
  return drain(res);
}

async function downloadVideo(ready: Ready): Promise<number> {
  const req = http.get({ host: '127.0.0.1', port: ready.port, path: `/video/download?media_pk=${ready.videoPk}`, headers: { 'x-session-id': ready.session } });
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  let bytes = 0;
  for await (const chunk of res) bytes += (chunk as Buffer).length;
  if (res.statusCode === 200 && bytes !== SIZE) throw new Error(`downloaded ${bytes} bytes, expected ${SIZE}`);
  return res.statusCode ?? 0;
}

async function uploadByUrl(ready: Ready, url: string): Promise<number> {
  const req = http.request({
    host: '127.0.0.1',
    port: ready.port,
    method: 'POST',
    path: '/video/upload/by/url',
    headers: { 'x-session-id': ready.session, 'content-type': 'application/x-www-form-urlencoded' },
  });
  req.end(new URLSearchParams({ url, caption: 'bench' }).toString());
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  return drain(res);
}

async function drain(res: http.IncomingMessage): Promise<number> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  if (res.statusCode !== 200) process.stderr.write(`HTTP ${res.statusCode}: ${text.slice(0, 300)}\n`);
  return res.statusCode ?? 0;
}

/** The "public web" for the by/url case, on loopback (the service allow-lists 127.0.0.1). */
async function bigFileServer(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': SIZE });
    void writeVideo(res).then(() => res.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.mp4`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

// ── the child: the service, sampling its own memory ─────────────────────────────────────────

async function serveChild(): Promise<void> {
  const ready = await startService(SIZE, async (path) => truncate(path, SIZE));
  let timer: NodeJS.Timeout | undefined;
  let memory: Memory = { baseline: 0, peak: 0, samples: 0 };
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  process.on('message', (msg) => {
    if (msg === 'begin') {
      gc();
      const baseline = process.memoryUsage.rss();
      memory = { baseline, peak: baseline, samples: 0 };
      timer = setInterval(() => {
        memory.peak = Math.max(memory.peak, process.memoryUsage.rss());
        memory.samples++;
      }, 5);
      process.send!('ok');
    } else if (msg === 'end') {
      clearInterval(timer);
      memory.peak = Math.max(memory.peak, process.memoryUsage.rss());
      process.send!(memory);
    }
  });
  process.send!(ready);
}

// ── the service under measurement ───────────────────────────────────────────────────────────
// The whole manifest over the sandbox, with limits raised for the bench's files, loopback
// allow-listed for the by/url case, and one upstream quirk: video_download writes a file of the
// bench's size (extended in place, so writing it costs the service nothing; the real upstream
// writes downloads in its own process).

async function startService(bytes: number, grow: (path: string) => Promise<void>): Promise<{ port: number; session: string; videoPk: string }> {
  const mb = String(Math.ceil(bytes / (1024 * 1024)) + 16);
  const config = testConfig({ uploadMaxMb: Number(mb), extra: { UPLOAD_MAX_VIDEO_MB: mb, FETCH_MAX_MB: mb, FETCH_ALLOW: '127.0.0.1' } });
  const sandbox = createSandbox();
  const app = createApp({
    config,
    upstream: growingDownloads(sandbox, grow),
    store: await createStore('memory://'),
    ...productParts(config),
    log: createLogger('silent'),
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
    method: 'POST',
    body: new URLSearchParams({ username: 'demo', password: 'demo-password' }),
  });
  const session = (await login.json()) as string;
  const video = [...sandbox.world.media.values()].find((m) => m.kind === 'video' || m.kind === 'clip');
  if (!video) throw new Error('the sandbox world has no video');
  return { port, session, videoPk: video.pk };
}

function growingDownloads(inner: UpstreamAdapter, grow: (path: string) => Promise<void>): UpstreamAdapter {
  return {
    ...inner,
    name: inner.name,
    library: inner.library,
    ready: () => inner.ready(),
    close: () => inner.close(),
    async open(options) {
      const client = await inner.open(options);
      return {
        exportSettings: () => client.exportSettings(),
        account: () => client.account(),
        close: () => client.close(),
        async call(method, kwargs, opts) {
          const result = await client.call(method, kwargs, opts);
          if (method === 'video_download' && typeof result === 'string') await grow(result);
          return result;
        },
      };
    },
  };
}

export function formatFigures(figures: readonly TransferFigure[]): string {
  return figures
    .map(
      (f) =>
        `${f.name.padEnd(34)} HTTP ${f.status}  ${(f.mb / f.seconds).toFixed(0).padStart(4)} MB/s  peak RSS growth ` +
        `${f.peakGrowthMb.toFixed(1)} MB (baseline ${f.baselineMb.toFixed(0)} MB, ${f.samples} samples; target < ` +
        `${TARGET_MB} MB)`,
    )
    .join('\n');
}

if (process.argv[2] === 'child') {
  await serveChild();
} else if (fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${formatFigures(await benchTransfer())}\n`);
}
