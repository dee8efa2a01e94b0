// Uploads and downloads end to end: the real manifest, the sandbox upstream and the upload plugins
// over HTTP. Every upload route is checked where a user would look for the result; downloads are
// compared byte for byte with what the sandbox serves; no temp file outlives a request. The only
// connections are to 127.0.0.1.
import { productParts } from '../../../bin/compose.js';
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { readZip } from '../../helpers/zip.js';

// multer and the request workdirs use os.tmpdir(): a private one lets the test see every temp file.
const TMP = mkdtempSync(path.join(os.tmpdir(), 'sg-e2e-tmp-'));
process.env.TMPDIR = TMP;

const { createApp } = await import('../../../engine/app.js');
const { testConfig } = await import('../../../engine/config.js');
const { createLogger } = await import('../../../engine/log.js');
const { createStore } = await import('../../../adapters/store/keyv.js');
const { createSandbox, sandboxFileBytes, PASSWORD, FIXED } = await import('../../../adapters/upstream/sandbox/index.js');
type UpstreamAdapter = import('../../../engine/types.js').UpstreamAdapter;

const JPEG = sandboxFileBytes('jpeg', 'e2e-upload');
const MP4 = sandboxFileBytes('mp4', 'e2e-upload');
const M4A = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypM4A '), Buffer.from([0, 0, 2, 0]), Buffer.from('M4A isom'), Buffer.alloc(600, 4)]);
const TEXT = Buffer.from('plain text, not media\n');

const sandbox = createSandbox({ seed: 1 });
/** Keyword arguments of every upstream call, to see what crossed the port. */
const crossed: { method: string; kwargs: Record<string, unknown> }[] = [];
const recording: UpstreamAdapter = {
  name: sandbox.name,
  library: sandbox.library,
  ready: () => sandbox.ready(),
  close: () => sandbox.close(),
  async open(options) {
    const client = await sandbox.open(options);
    return {
      exportSettings: () => client.exportSettings(),
      account: () => client.account(),
      close: () => client.close(),
      call: (method, kwargs, opts) => {
        crossed.push({ method, kwargs: { ...kwargs } });
        return client.call(method, kwargs, opts);
      },
    };
  },
};
const config = testConfig({ uploadMaxMb: 1, extra: { FETCH_ALLOW: '127.0.0.1', UPLOAD_MAX_IMAGE_MB: '0.05' } });
const app = createApp({ config, upstream: recording, store: await createStore('memory://'), ...productParts(config), log: createLogger('silent') });
const server = http.createServer(app.callback());
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// A second loopback server plays the public web for the by/url routes.
const web = http.createServer((req, res) => {
  const files: Record<string, Buffer> = { '/photo.jpg': JPEG, '/clip.mp4': MP4, '/page.txt': TEXT };
  if (req.url === '/to-loopback') return void res.writeHead(302, { location: `http://[::1]:${webPort}/photo.jpg` }).end();
  const body = files[req.url ?? ''];
  if (body) res.writeHead(200, { 'content-length': body.length }).end(body);
  else res.writeHead(404).end();
});
web.listen(0, '127.0.0.1');
await once(web, 'listening');
const webPort = (web.address() as AddressInfo).port;
const WEB = `http://127.0.0.1:${webPort}`;

t.teardown(async () => {
  server.closeAllConnections();
  server.close();
  web.closeAllConnections();
  web.close();
  await app.close();
  await rm(TMP, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { items?: Record<string, unknown>[] };
  bytes: Buffer;
}
let session = '';
async function call(method: string, route: string, options: { query?: Record<string, string>; form?: FormData | URLSearchParams } = {}): Promise<Reply> {
  const url = new URL(route, base);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.append(k, v);
  const response = await fetch(url, { method, body: options.form, headers: session ? { 'x-session-id': session } : {} });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: Reply['body'] = {};
  try {
    body = JSON.parse(bytes.toString()) as Reply['body'];
  } catch {
    /* a file */
  }
  return { status: response.status, headers: response.headers, body, bytes };
}

function form(fields: Record<string, string | string[]>, files: [string, Buffer<ArrayBuffer>, string][] = []): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) data.append(k, one);
  for (const [field, bytes, name] of files) data.append(field, new Blob([bytes]), name);
  return data;
}

async function settle(): Promise<string[]> {
  // The engine removes temp files once the response is closed; give that a moment.
  for (let i = 0; i < 50; i++) {
    const left = readdirSync(TMP);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
  return readdirSync(TMP);
}

const ME = FIXED.demo;
t.before(async () => {
  const login = await call('POST', '/auth/login', { form: new URLSearchParams({ username: 'demo', password: PASSWORD }) });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.bytes.toString()}`);
  const body = JSON.parse(login.bytes.toString()) as unknown;
  session = typeof body === 'string' ? body : String((body as { session_id?: string }).session_id);
});

async function pksAt(route: string, query: Record<string, string> = { user_id: ME }): Promise<string[]> {
  const reply = await call('GET', route, { query });
  const items = Array.isArray(reply.body) ? (reply.body as Record<string, unknown>[]) : (reply.body.items ?? []);
  return items.map((i) => String(i.pk ?? i.id));
}

async function aTrack(): Promise<Record<string, unknown>> {
  const track = sandbox.world.tracks.values().next().value!;
  const reply = await call('GET', '/track', { query: { canonical_id: track.canonicalId } });
  t.equal(reply.status, 200, 'a track to upload with');
  return reply.body;
}

t.test("feed uploads appear in the account's posts, videos and reels", async (t) => {
  const track = JSON.stringify(await aTrack());
  const usertags = JSON.stringify([{ user: { pk: FIXED.demo_2fa }, x: 0.2, y: 0.3 }]);
  const cases: [string, FormData, string][] = [
    ['/photo/upload', form({ caption: 'photo #e2e', usertags }, [['file', JPEG, 'a.jpg']]), '/user/posts'],
    ['/photo/upload/with/music', form({ caption: 'photo music', track }, [['file', JPEG, 'a.jpg']]), '/user/posts'],
    [
      '/video/upload',
      form({ caption: 'video' }, [
        ['file', MP4, 'v.mp4'],
        ['thumbnail', JPEG, 't.jpg'],
      ]),
      '/user/videos',
    ],
    ['/longvideo/upload', form({ caption: 'long', title: 'A title' }, [['file', MP4, 'v.mp4']]), '/user/posts'],
    [
      '/album/upload',
      form({ caption: 'album' }, [
        ['files', JPEG, 'a.jpg'],
        ['files', MP4, 'b.mp4'],
      ]),
      '/user/posts',
    ],
    [
      '/album/upload/with/music',
      form({ caption: 'album music', track }, [
        ['files', JPEG, 'a.jpg'],
        ['files', JPEG, 'b.jpg'],
      ]),
      '/user/posts',
    ],
    ['/clip/upload', form({ caption: 'clip' }, [['file', MP4, 'c.mp4']]), '/user/reels'],
    ['/clip/upload/with/music', form({ caption: 'clip music', track }, [['file', MP4, 'c.mp4']]), '/user/reels'],
  ];
  for (const [route, body, where] of cases) {
    const reply = await call('POST', route, { form: body });
    t.equal(reply.status, 200, `${route}: ${reply.status} ${reply.bytes.toString().slice(0, 300)}`);
    const pk = String(reply.body.pk);
    t.ok((await pksAt(where)).includes(pk), `${route}: media ${pk} is in ${where}`);
    t.same(await settle(), [], `${route}: no temp file left`);
  }
  const tagged = await pksAt('/user/tagged/posts', { user_id: FIXED.demo_2fa });
  t.ok(tagged.length > 0, 'the usertag reached the tagged user');
});

t.test('by/url uploads fetch from a loopback server the allow-list permits', async (t) => {
  const cases: [string, Record<string, string>, string][] = [
    ['/photo/upload/by/url', { url: `${WEB}/photo.jpg`, caption: 'by url' }, '/user/posts'],
    ['/video/upload/by/url', { url: `${WEB}/clip.mp4`, thumbnail_url: `${WEB}/photo.jpg`, caption: 'by url' }, '/user/videos'],
    ['/longvideo/upload/by/url', { url: `${WEB}/clip.mp4`, title: 'T', caption: 'by url' }, '/user/posts'],
    ['/clip/upload/by/url', { url: `${WEB}/clip.mp4`, caption: 'by url' }, '/user/reels'],
  ];
  for (const [route, fields, where] of cases) {
    const reply = await call('POST', route, { form: new URLSearchParams(fields) });
    t.equal(reply.status, 200, `${route}: ${reply.bytes.toString().slice(0, 300)}`);
    t.ok((await pksAt(where)).includes(String(reply.body.pk)), `${route}: in ${where}`);
    t.same(await settle(), [], `${route}: no temp file left`);
  }
  const story = await call('POST', '/story/upload/by/url', { form: new URLSearchParams({ url: `${WEB}/clip.mp4` }) });
  t.equal(story.status, 200, story.bytes.toString().slice(0, 300));
  t.equal(story.body.media_type, 2, 'a video story: the content decided as_video');
  t.ok((await pksAt('/user/stories')).includes(String(story.body.pk)));
});

t.test('by/url refusals name the field and say why; loopback is refused through redirects', async (t) => {
  const cases: [Record<string, string>, number, string, RegExp][] = [
    [{ url: `${WEB}/to-loopback`, caption: 'x' }, 422, 'url', /::1 is a loopback address/],
    [{ url: `http://[::1]:${webPort}/photo.jpg`, caption: 'x' }, 422, 'url', /::1 is a loopback address/],
    [{ url: `http://169.254.169.254/latest/meta-data/`, caption: 'x' }, 422, 'url', /cloud metadata/],
    [{ url: `${WEB}/page.txt`, caption: 'x' }, 422, 'url', /expected an image/],
  ];
  for (const [fields, status, field, why] of cases) {
    const reply = await call('POST', '/photo/upload/by/url', { form: new URLSearchParams(fields) });
    t.equal(reply.status, status, fields.url);
    t.match(reply.body, { errors: [{ param: field, problem: why }] }, fields.url);
    t.match(String(reply.body.detail), why);
  }
  t.same(await settle(), []);
});

t.test('stories and decorations', async (t) => {
  const mention = JSON.stringify({ user: { pk: FIXED.demo_2fa, username: 'demo_2fa' } });
  const photo = await call('POST', '/story/upload', { form: form({ caption: 'story', mentions: [mention] }, [['file', JPEG, 's.jpg']]) });
  t.equal(photo.status, 200, photo.bytes.toString().slice(0, 300));
  t.equal(photo.body.media_type, 1);
  const video = await call('POST', '/story/upload', {
    form: form({ as_video: 'true', hashtags: JSON.stringify([{ hashtag: { id: '17843826142012701', name: 'sunset' } }]) }, [['file', MP4, 's.mp4']]),
  });
  t.equal(video.status, 200, video.bytes.toString().slice(0, 300));
  t.equal(video.body.media_type, 2);
  const centred = { x: 0.5, y: 0.5, width: 0.5, height: 0.2, rotation: 0 };
  const photoCall = crossed.filter((c) => c.method === 'photo_upload_to_story').at(-1);
  t.match(photoCall?.kwargs, { mentions: [{ user: { pk: FIXED.demo_2fa }, ...centred }] }, 'the mention reached the upstream centred');
  const videoCall = crossed.filter((c) => c.method === 'video_upload_to_story').at(-1);
  t.match(videoCall?.kwargs, { hashtags: [{ hashtag: { name: 'sunset' }, ...centred }], path: /\.mp4$/ }, 'the hashtag too, and the video kept its kind');
  const stories = await pksAt('/user/stories');
  t.ok(stories.includes(String(photo.body.pk)) && stories.includes(String(video.body.pk)), "both stories are in the user's stories");
  const contradiction = await call('POST', '/story/upload', { form: form({ as_video: 'true' }, [['file', JPEG, 's.jpg']]) });
  t.match(contradiction, { status: 422, body: { errors: [{ param: 'file', problem: /as_video is true/ }] } });
  t.same(await settle(), []);
});

t.test('profile picture and highlight cover', async (t) => {
  const before = await call('GET', '/account');
  const picture = await call('PATCH', '/account/picture', { form: form({}, [['picture', JPEG, 'me.jpg']]) });
  t.equal(picture.status, 200, picture.bytes.toString().slice(0, 300));
  const after = await call('GET', '/account');
  t.not(after.body.profile_pic_url, before.body.profile_pic_url, 'the profile picture changed');

  const story = await call('POST', '/story/upload', { form: form({}, [['file', JPEG, 's.jpg']]) });
  const created = await call('POST', '/highlight', { form: new URLSearchParams({ title: 'E2E', story_ids: String(story.body.pk) }) });
  t.equal(created.status, 200, created.bytes.toString().slice(0, 300));
  const cover = await call('PATCH', '/highlight', { form: form({ highlight_pk: String(created.body.pk) }, [['cover_picture', JPEG, 'cover.jpg']]) });
  t.equal(cover.status, 200, cover.bytes.toString().slice(0, 300));
  t.not(JSON.stringify(cover.body.cover_media), JSON.stringify(created.body.cover_media), 'the cover changed');
  t.same(await settle(), []);
});

t.test('direct uploads land in the thread', async (t) => {
  const cases: [string, [string, Buffer<ArrayBuffer>, string][], Record<string, string>][] = [
    ['/direct/photo', [['file', JPEG, 'p.jpg']], {}],
    ['/direct/video', [['file', MP4, 'v.mp4']], {}],
    ['/direct/voice', [['file', M4A, 'v.m4a']], {}],
    ['/direct/file', [['file', TEXT, 'notes.txt']], {}],
  ];
  let thread = '';
  for (const [route, files, fields] of cases) {
    const reply = await call('POST', route, { form: form({ ...fields, ...(thread ? { thread_ids: thread } : { user_ids: FIXED.demo_2fa }) }, files) });
    t.equal(reply.status, 200, `${route}: ${reply.bytes.toString().slice(0, 300)}`);
    thread = String(reply.body.thread_id);
    t.ok((await pksAt('/direct/messages', { thread_id: thread })).includes(String(reply.body.id)), `${route}: message in the thread`);
  }
  const upload = await call('POST', '/direct/video/upload', {
    form: form({ thread_ids: thread }, [
      ['file', MP4, 'v.mp4'],
      ['thumbnail', JPEG, 't.jpg'],
    ]),
  });
  t.equal(upload.status, 200, upload.bytes.toString().slice(0, 300));
  t.same(await settle(), []);
});

t.test('limits and content checks over HTTP', async (t) => {
  const big = Buffer.concat([JPEG, Buffer.alloc(60 * 1024)]);
  const over = await call('POST', '/photo/upload', { form: form({ caption: 'big' }, [['file', big, 'big.jpg']]) });
  t.match(over, { status: 413, body: { exc_type: 'PayloadTooLarge', errors: [{ param: 'file', problem: /UPLOAD_MAX_IMAGE_MB/ }] } });
  t.same(await settle(), [], 'an oversize file leaves no temp file');
  const huge = await call('POST', '/video/upload', {
    form: form({ caption: 'huge' }, [['file', Buffer.concat([MP4, Buffer.alloc(1100 * 1024)]), 'huge.mp4']]),
  });
  t.match(huge, { status: 413, body: { errors: [{ param: 'file' }] } }, "over the engine's upload limit while streaming");
  t.same(await settle(), [], 'the partial file is gone too');
  const wrong = await call('POST', '/photo/upload', { form: form({ caption: 'x' }, [['file', MP4, 'looks.jpg']]) });
  t.match(wrong, { status: 422, body: { errors: [{ param: 'file', problem: /expected an image .* got video\/mp4/ }] } });
  const thumb = await call('POST', '/video/upload', {
    form: form({ caption: 'x' }, [
      ['file', MP4, 'v.mp4'],
      ['thumbnail', TEXT, 't.jpg'],
    ]),
  });
  t.match(thumb, { status: 422, body: { errors: [{ param: 'thumbnail' }] } });
  const album = await call('POST', '/album/upload', {
    form: form({ caption: 'x' }, [
      ['files', JPEG, 'a.jpg'],
      ['files', TEXT, 'b.jpg'],
    ]),
  });
  t.match(album, { status: 422, body: { errors: [{ param: 'files' }] } });
  t.same(await settle(), []);
});

t.test("downloads are the sandbox's bytes, with type, length and a name", async (t) => {
  const posts = [...sandbox.world.media.values()];
  const photo = posts.find((m) => m.kind === 'photo')!;
  const clip = posts.find((m) => m.kind === 'clip')!;
  const igtv = posts.find((m) => m.kind === 'igtv') ?? clip;
  const cases: [string, Record<string, string>, Buffer, string][] = [
    ['/photo/download', { media_pk: photo.pk }, sandboxFileBytes('jpeg', photo.pk), 'image/jpeg'],
    ['/video/download', { media_pk: clip.pk }, sandboxFileBytes('mp4', clip.pk), 'video/mp4'],
    ['/clip/download', { media_pk: clip.pk }, sandboxFileBytes('mp4', clip.pk), 'video/mp4'],
    ['/photo/download/by/url', { url: `https://media.sandbox.invalid/i/${photo.pk}.jpg` }, sandboxFileBytes('jpeg', photo.pk), 'image/jpeg'],
  ];
  if (igtv.kind === 'igtv') cases.push(['/longvideo/download', { media_pk: igtv.pk }, sandboxFileBytes('mp4', igtv.pk), 'video/mp4']);
  for (const [route, query, bytes, type] of cases) {
    const reply = await call('GET', route, { query });
    t.equal(reply.status, 200, `${route}: ${reply.bytes.toString().slice(0, 200)}`);
    t.ok(reply.bytes.equals(bytes), `${route}: byte for byte`);
    t.equal(reply.headers.get('content-type'), type, route);
    t.equal(reply.headers.get('content-length'), String(bytes.length), route);
    t.match(reply.headers.get('content-disposition'), /^attachment; filename="[^"/]+\.(jpg|mp4)"$/, route);
  }
  const story = [...sandbox.world.stories.values()][0];
  const storyReply = await call('GET', '/story/download', { query: { story_pk: story.pk } });
  t.ok(storyReply.bytes.equals(sandboxFileBytes(story.video ? 'mp4' : 'jpeg', story.pk)), 'story download byte for byte');
  t.same(await settle(), [], "nothing accumulates on the server's disk");
});

t.test('album downloads are a zip of the files', async (t) => {
  const album = [...sandbox.world.media.values()].find((m) => m.kind === 'album' && m.children.length >= 2)!;
  const reply = await call('GET', '/album/download', { query: { media_pk: album.pk } });
  t.equal(reply.status, 200, reply.bytes.toString().slice(0, 200));
  t.equal(reply.headers.get('content-type'), 'application/zip');
  t.match(reply.headers.get('content-disposition'), /attachment; filename=".+\.zip"/);
  const entries = readZip(reply.bytes);
  t.equal(entries.size, album.children.length);
  for (const child of album.children) {
    const [name, bytes] = [...entries].find(([n]) => n.includes(child.pk)) ?? [];
    t.ok(name, `entry for ${child.pk}`);
    t.ok(bytes?.equals(sandboxFileBytes(child.video ? 'mp4' : 'jpeg', child.pk)), `${name} byte for byte`);
  }
  t.same(await settle(), []);
});

t.test('no caller-chosen server folder: folder is not a parameter of any download route', async (t) => {
  for (const route of app.manifest.routes.filter((r) => r.result.shape === 'file' || r.result.shape === 'files')) {
    t.notOk(
      route.params.some((p) => p.name === 'folder' || p.name === 'path'),
      `${route.key} takes no folder`,
    );
  }
  const reply = await call('GET', '/photo/download', {
    query: { media_pk: [...sandbox.world.media.values()].find((m) => m.kind === 'photo')!.pk, folder: '/etc' },
  });
  t.not(reply.status, 200, 'an unknown folder parameter is refused, not honoured');
});

t.test('the OpenAPI document names and documents every multipart file field', async (t) => {
  const doc = app.openapi as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
    components: {
      schemas: Record<string, { properties?: Record<string, { type?: string; format?: string; description?: string; items?: { format?: string } }> }>;
    };
  };
  const routes = app.manifest.routes.filter((r) => r.params.some((p) => p.type === 'file'));
  t.equal(
    routes.length,
    17,
    'photo, video, long video, album, clip, three with music, story, story with music (1.12), highlight cover, profile picture, five direct',
  );
  for (const route of routes) {
    const body = doc.paths[route.path][route.method.toLowerCase()].requestBody;
    const ref = body?.content['multipart/form-data']?.schema.$ref ?? '';
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    for (const param of route.params.filter((p) => p.type === 'file')) {
      const field = schema?.properties?.[param.name];
      t.equal(field?.format ?? field?.items?.format, 'binary', `${route.key}: ${param.name} is a binary multipart field`);
      t.ok(field?.description, `${route.key}: ${param.name} is documented`);
    }
  }
});
