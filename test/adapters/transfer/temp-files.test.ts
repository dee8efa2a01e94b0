// What a request leaves behind and when it stops: every temp file and folder is removed whether the
// client hangs up after a whole upload, before a download is written, or half-way through a
// multipart body; a by/url fetch stops when its client is gone; a file over its field's cap is cut
// off while it streams in and answered at once. Raw sockets (node:net) so the test decides exactly
// when the connection closes and what is left unsent; every connection is to 127.0.0.1.
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http, { type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import t from 'tap';

// multer and the request workdirs use os.tmpdir(): a private one lets the test see every temp file.
const TMP = mkdtempSync(path.join(os.tmpdir(), 'sg-lifecycle-tmp-'));
process.env.TMPDIR = TMP;

const { product } = await import('../../helpers/full-app.js');
const { sandboxFileBytes, FIXED } = await import('../../../adapters/upstream/sandbox/index.js');
const { bodyParserFor } = await import('../../../engine/pipeline/body.js');
const { RequestState } = await import('../../../engine/pipeline/request.js');
const { HttpError } = await import('../../../engine/http-error.js');
const { streamCapFor } = await import('../../../plugins/upload/index.js');
const { transferSettingsFor } = await import('../../../adapters/transfer/index.js');

const JPEG = sandboxFileBytes('jpeg', 'lifecycle');
const sg = await product({ extra: { FETCH_ALLOW: '127.0.0.1', FETCH_TIMEOUT_MS: '20000' } });
const session = await sg.login();

t.teardown(async () => {
  await sg.client.close();
  await rm(TMP, { recursive: true, force: true });
});

/** Multipart body and its content type, encoded by the platform's own FormData. */
async function multipart(fields: Record<string, string>, files: [string, Buffer<ArrayBuffer>, string][]): Promise<{ body: Buffer<ArrayBuffer>; type: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [field, bytes, name] of files) form.append(field, new Blob([bytes]), name);
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), type: encoded.headers.get('content-type') ?? '' };
}

function rawRequest(method: string, target: string, headers: Record<string, string | number> = {}, body = Buffer.alloc(0)): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', `X-Session-Id: ${session}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

async function connect(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

function send(socket: net.Socket, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(bytes, (err) => (err ? reject(err) : resolve())));
}

/**
 * Send `bytes` (or only the first `upTo` of them), wait for `ready`, then drop the connection with
 * a reset, as a killed client or a lost network does: the service hears of it at once, before it
 * has written anything (a plain close reaches it sooner or later, so the old leak was a race).
 */
async function sendAndHangUp(bytes: Buffer, upTo = bytes.length, ready: () => boolean | Promise<boolean> = () => true): Promise<void> {
  const socket = await connect(Number(new URL(sg.client.url).port));
  await send(socket, bytes.subarray(0, upTo));
  if (!(await until(ready))) throw new Error('the service never got that far');
  socket.resetAndDestroy();
}

/** How many requests the service has finished for a route (its access metrics). */
async function handled(route: string): Promise<number> {
  const metric = await sg.app.metrics.registry.getSingleMetric('socialgate_http_requests_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.route === route).reduce((sum, v) => sum + v.value, 0);
}

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (await check()) return true;
  return check();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the service has put in its temp folder since `before` was taken. */
function newEntries(before: readonly string[]): string[] {
  return readdirSync(TMP).filter((name) => !before.includes(name));
}

/** Wait for the service to finish one more request on `route`, then for its temp files to go. */
async function leftoversAfter(route: string, handledBefore: number, before: readonly string[]): Promise<string[]> {
  if (!(await until(async () => (await handled(route)) > handledBefore))) throw new Error(`the service never finished ${route}`);
  await until(() => newEntries(before).length === 0);
  return newEntries(before);
}

t.test('cleanup runs once the handler has settled and the response has closed, in either order', async (t) => {
  const response = (destroyed: boolean) => Object.assign(new EventEmitter(), { destroyed }) as unknown as ServerResponse & { destroyed: boolean };
  const ran: string[] = [];
  const open = response(false);
  const streaming = new RequestState('streaming', open);
  streaming.defer(() => void ran.push('streaming'));
  streaming.settle();
  await sleep(5);
  t.same(ran, [], 'not while the response may still be sending a file');
  open.destroyed = true;
  open.emit('close');
  await sleep(5);
  t.same(ran, ['streaming']);

  const hungUp = new RequestState('hung up', response(true)); // closed before any cleanup existed
  hungUp.defer(() => void ran.push('hung up'));
  hungUp.settle();
  await sleep(5);
  t.same(ran, ['streaming', 'hung up'], 'a response closed before the first defer still gets its cleanup');
  hungUp.defer(() => void ran.push('late'));
  await sleep(5);
  t.same(ran, ['streaming', 'hung up', 'late'], 'a cleanup registered after cleanup ran runs at once');

  const quiet = response(false);
  new RequestState('quiet', quiet).settle();
  t.equal(quiet.listenerCount('close'), 0, 'a request with nothing to clean adds no listener');
});

t.test('a whole upload whose client hung up at once leaves no temp file', async (t) => {
  const [count, before] = [await handled('POST /photo/upload'), readdirSync(TMP)];
  const { body, type } = await multipart({ caption: 'hung up' }, [['file', JPEG, 'a.jpg']]);
  await sendAndHangUp(rawRequest('POST', '/photo/upload', { 'Content-Type': type, 'Content-Length': body.length }, body));
  t.same(await leftoversAfter('POST /photo/upload', count, before), [], "neither multer's file nor its renamed copy is left");
});

t.test('a download whose client hung up at once leaves no work folder', async (t) => {
  const posts = await sg.client.request('GET', '/user/posts', { query: { user_id: FIXED.demo }, headers: { 'x-session-id': session } });
  const photo = (posts.body as { items: { pk: string; media_type: number }[] }).items.find((m) => m.media_type === 1);
  if (!photo) throw new Error(`no photo among the demo account's posts: ${posts.text.slice(0, 200)}`);
  const [count, before] = [await handled('GET /photo/download'), readdirSync(TMP)];
  await sendAndHangUp(rawRequest('GET', `/photo/download?media_pk=${photo.pk}`));
  t.same(await leftoversAfter('GET /photo/download', count, before), [], 'no socialgate-XXXX folder is left');
});

t.test("an upload aborted half-way leaves none of multer's partial files", async (t) => {
  const [count, before] = [await handled('POST /album/upload'), readdirSync(TMP)];
  const big = Buffer.concat([JPEG, Buffer.alloc(256 * 1024, 1)]);
  const { body, type } = await multipart({ caption: 'cut' }, [
    ['files', JPEG, 'a.jpg'],
    ['files', big, 'b.jpg'],
  ]);
  const request = rawRequest('POST', '/album/upload', { 'Content-Type': type, 'Content-Length': body.length }, body);
  // The first file is whole and the second half sent: both are on disk when the socket closes.
  await sendAndHangUp(request, request.length - 128 * 1024, () => newEntries(before).length === 2);
  t.same(await leftoversAfter('POST /album/upload', count, before), []);
});

t.test('a by/url fetch stops when its client hangs up', async (t) => {
  let fetching = false;
  let stoppedAt = 0;
  // Sends a few bytes and then nothing: well inside the 20 s read timeout, the fetch would wait on.
  const slow = http.createServer((req, res) => {
    req.socket.once('close', () => {
      stoppedAt = Date.now();
    });
    res.writeHead(200, { 'content-type': 'image/jpeg' }).write(JPEG.subarray(0, 64));
    fetching = true;
  });
  slow.listen(0, '127.0.0.1');
  await once(slow, 'listening');
  t.teardown(() => {
    slow.closeAllConnections();
    slow.close();
  });
  const [count, before] = [await handled('POST /photo/upload/by/url'), readdirSync(TMP)];
  const form = Buffer.from(new URLSearchParams({ url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow.jpg`, caption: 'slow' }).toString());
  await sendAndHangUp(
    rawRequest('POST', '/photo/upload/by/url', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': form.length }, form),
    undefined,
    () => fetching,
  );
  const hungUpAt = Date.now();
  t.ok(await until(() => stoppedAt > 0), 'the local server saw its connection closed');
  t.ok(stoppedAt - hungUpAt < 2000, `within ${stoppedAt - hungUpAt} ms of the hang-up, not at the read timeout`);
  t.same(await leftoversAfter('POST /photo/upload/by/url', count, before), [], 'the partial download and its folder are gone');
});

// The body parser with the upload plugins' per-kind caps (BodyLimits.fileCap, as the composition
// root is to inject them), served alone: images are capped at 50 KB, videos only by the 1 MB
// global limit.
const IMAGE_CAP = 50 * 1024;
async function capsServer(routeKey: string): Promise<{ port: number; close: () => void }> {
  const route = sg.app.manifest.routes.find((r) => r.key === routeKey)!;
  const fileCap = streamCapFor(transferSettingsFor({ UPLOAD_MAX_IMAGE_MB: String(IMAGE_CAP / 1024 / 1024) }));
  const parse = bodyParserFor(route, { fileBytes: 1024 * 1024, formBytes: 64 * 1024, fileCap })!;
  const koa = new Koa();
  koa.use(async (ctx) => {
    const state = new RequestState('caps', ctx.res);
    try {
      await parse(ctx, state);
      ctx.body = { files: state.files.map((f) => ({ field: f.field, size: f.size })) };
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      ctx.status = error.status;
      ctx.set({ ...error.headers });
      ctx.body = { detail: error.message, errors: error.errors };
    } finally {
      state.settle();
    }
  });
  const server = http.createServer(koa.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Everything the server sends until it closes the connection, or until `ms` pass. */
async function readUntilClosed(socket: net.Socket, ms: number): Promise<{ text: string; closed: boolean }> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const closed = await Promise.race([once(socket, 'close').then(() => true), sleep(ms).then(() => false)]);
  return { text: Buffer.concat(chunks).toString(), closed };
}

t.test("a file over its field's cap is cut off while it streams in, and answered before the body ends", async (t) => {
  const server = await capsServer('POST /video/upload');
  t.teardown(server.close);
  const before = readdirSync(TMP);
  let largest = 0;
  const sampler = setInterval(() => {
    for (const name of newEntries(before)) largest = Math.max(largest, statSync(path.join(TMP, name), { throwIfNoEntry: false })?.size ?? 0);
  }, 2);
  t.teardown(() => clearInterval(sampler));
  const thumbnail = Buffer.concat([JPEG, Buffer.alloc(600 * 1024, 2)]);
  const { body, type } = await multipart({}, [
    ['file', Buffer.alloc(20 * 1024, 3), 'v.mp4'],
    ['thumbnail', thumbnail, 't.jpg'],
  ]);
  const socket = await connect(server.port);
  const started = Date.now();
  // All but the last kilobyte: the client has not finished when the answer must already come.
  await send(socket, rawRequest('POST', '/video/upload', { 'Content-Type': type, 'Content-Length': body.length }, body.subarray(0, body.length - 1024)));
  const reply = await readUntilClosed(socket, 3000);
  clearInterval(sampler);
  t.match(reply.text, /^HTTP\/1\.1 413 /, `answered in ${Date.now() - started} ms with the body unfinished`);
  t.match(reply.text, /\r\nConnection: close\r\n/i, 'and the connection is closed, so the rest is not read');
  t.ok(reply.closed, 'the server closed it');
  const answer = JSON.parse(reply.text.slice(reply.text.indexOf('\r\n\r\n') + 4)) as { errors: { param: string; problem: string }[] };
  t.match(answer.errors, [{ param: 'thumbnail', problem: /over the 50 KB limit for image files \(UPLOAD_MAX_IMAGE_MB\)/ }]);
  t.ok(largest <= IMAGE_CAP + 16 * 1024, `at most ${largest} bytes of a ${thumbnail.length}-byte file reached the disk`);
  t.ok(await until(() => newEntries(before).length === 0), 'the capped file and the video before it are gone');
});

t.test('caps are per field: a video passes where an image of its size is cut off; the global limit still holds', async (t) => {
  const server = await capsServer('POST /video/upload');
  t.teardown(server.close);
  const before = readdirSync(TMP);
  const post = async (field: string, bytes: Buffer<ArrayBuffer>) => {
    const { body, type } = await multipart({}, [[field, bytes, 'x.bin']]);
    const reply = await fetch(`http://127.0.0.1:${server.port}/video/upload`, { method: 'POST', headers: { 'content-type': type }, body });
    return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
  };
  t.match(await post('file', Buffer.alloc(600 * 1024)), { status: 200, body: { files: [{ field: 'file', size: 600 * 1024 }] } });
  t.match(await post('file', Buffer.alloc(1100 * 1024)), {
    status: 413,
    body: { errors: [{ param: 'file', problem: /over the 1 MB upload limit \(UPLOAD_MAX_MB\)/ }] },
  });
  t.ok(await until(() => newEntries(before).length === 0), 'no temp file left');
});

t.test('the product cuts an oversize photo off while it streams in (per-kind caps wired at composition)', async (t) => {
  const capped = await product({ uploadMaxMb: 64, extra: { UPLOAD_MAX_IMAGE_MB: String(IMAGE_CAP / 1024 / 1024) } });
  t.teardown(() => capped.client.close());
  const sid = await capped.login();
  const before = readdirSync(TMP);
  const photo = Buffer.concat([JPEG, Buffer.alloc(2 * 1024 * 1024, 2)]);
  const { body, type } = await multipart({ caption: 'too big' }, [['file', photo, 'p.jpg']]);
  const socket = await connect(Number(new URL(capped.client.url).port));
  const head = ['POST /photo/upload HTTP/1.1', 'Host: 127.0.0.1', `X-Session-Id: ${sid}`, `Content-Type: ${type}`, `Content-Length: ${body.length}`];
  // Half the body: a cap applied only after the whole file is on disk could never answer this.
  await send(socket, Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body.subarray(0, body.length / 2)]));
  const reply = await readUntilClosed(socket, 3000);
  t.match(reply.text, /^HTTP\/1\.1 413 /, 'a 413 with half the body unsent');
  t.match(reply.text, /over the 50 KB limit for image files \(UPLOAD_MAX_IMAGE_MB\)/, 'naming the kind limit');
  t.match(reply.text, /"param":"file"/, 'and the field');
  t.ok(await until(() => newEntries(before).length === 0), 'nothing left in the temp folder');
});
