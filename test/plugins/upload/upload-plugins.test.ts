// The upload plugins against a fake PluginInput: what reaches the route's calls, which outcomes
// are 413 and 422 and which field they name, and that every temp file is gone after cleanup.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { HttpError } from '../../../engine/http-error.js';
import type { InputBag, ParamSpec, PluginInput, RouteSpec, Services, UploadedFile } from '../../../engine/types.js';
import { CENTRED, uploadPlugins } from '../../../plugins/upload/index.js';
import { loopbackServer } from '../../helpers/loopback.js';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(2000, 1)]);
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2'), Buffer.alloc(4000, 3)]);
const M4A = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypM4A '), Buffer.from([0, 0, 2, 0]), Buffer.from('M4A isom'), Buffer.alloc(300, 4)]);
const TEXT = Buffer.from('<html>not an image</html>');

function param(name: string, type: ParamSpec['type'], extra: Partial<ParamSpec> = {}): ParamSpec {
  return {
    name,
    in: type === 'file' ? 'file' : 'form',
    type,
    required: false,
    repeated: false,
    schema: {},
    upstream: name,
    coerce: type,
    ...extra,
  } as ParamSpec;
}
function route(key: string, plugin: string, params: ParamSpec[]): RouteSpec {
  const [method, p] = key.split(' ');
  return {
    key,
    id: p,
    method,
    path: p,
    area: 'test',
    tag: 'test',
    file: 'test.yaml',
    summary: key,
    session: 'required',
    plugin,
    params,
    request: { query: [], form: params.filter((x) => x.in === 'form'), files: params.filter((x) => x.in === 'file') },
    constraints: [],
    resolve: [],
    calls: [],
    result: { shape: 'object', schema: {}, options: {}, contentType: 'application/json', body: 'json' },
    upstreamMethods: [],
  } as unknown as RouteSpec;
}

const PHOTO = route('POST /photo/upload', 'upload.file', [param('file', 'file', { format: 'image', required: true }), param('caption', 'string')]);
const VIDEO = route('POST /video/upload', 'upload.file', [param('file', 'file', { format: 'video' }), param('thumbnail', 'file', { format: 'image' })]);
const ALBUM = route('POST /album/upload', 'upload.file', [param('files', 'file', { format: 'image_or_video', repeated: true })]);
const VOICE = route('POST /direct/voice', 'upload.file', [param('file', 'file', { format: 'audio' })]);
const ANY = route('POST /direct/file', 'upload.file', [param('file', 'file', { format: 'any' })]);
const decorations = ['mentions', 'locations', 'links', 'hashtags', 'stickers'].map((n) => param(n, 'json', { repeated: true }));
const STORY = route('POST /story/upload', 'upload.file', [param('file', 'file', { format: 'image_or_video' }), param('as_video', 'boolean'), ...decorations]);
const STORY_URL = route('POST /story/upload/by/url', 'upload.url', [
  param('url', 'url', { format: 'image_or_video' }),
  param('as_video', 'boolean'),
  ...decorations,
]);
const VIDEO_URL = route('POST /video/upload/by/url', 'upload.url', [
  param('url', 'url', { format: 'video' }),
  param('thumbnail_url', 'url', { format: 'image' }),
]);

let dir = '';
t.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sg-plugin-'));
});
t.after(() => rm(dir, { recursive: true, force: true }));

let n = 0;
async function upload(field: string, bytes: Buffer): Promise<UploadedFile> {
  const file = path.join(dir, `multer-${++n}`);
  await writeFile(file, bytes);
  return { field, path: file, originalName: 'x', mimeType: 'application/octet-stream', size: bytes.length };
}

interface Run {
  readonly bag?: InputBag;
  /** Bytes of every file the bag names, read while the call ran. */
  readonly seen: Record<string, Buffer>;
  readonly error?: HttpError;
  readonly leftovers: string[];
}

async function run(r: RouteSpec, input: InputBag, files: UploadedFile[], extra: Record<string, string> = {}): Promise<Run> {
  const cleanups: (() => Promise<void> | void)[] = [];
  let workdir: string | undefined;
  let bag: InputBag | undefined;
  const seen: Record<string, Buffer> = {};
  const engineBag = { ...input };
  for (const f of files) engineBag[f.field] = f.path;
  const pluginInput: PluginInput = {
    parts: undefined,
    route: r,
    input: engineBag,
    files,
    caller: {},
    requestId: 'test',
    signal: new AbortController().signal,
    services: { config: { extra } } as unknown as Services,
    invoke: async (b) => {
      bag = b;
      for (const [k, v] of Object.entries(b)) {
        for (const p of [v].flat()) if (typeof p === 'string' && p.startsWith('/')) seen[`${k}:${path.basename(p)}`] = await readFile(p);
      }
      return { ok: true };
    },
    workdir: async () => (workdir ??= await mkdtemp(path.join(dir, 'work-'))),
    defer: (task) => void cleanups.push(task),
  };
  let error: HttpError | undefined;
  try {
    await uploadPlugins[r.plugin!].handle(pluginInput);
  } catch (err) {
    error = err as HttpError;
  }
  // What the engine does after the response: its own files, the workdir, then the plugin's tasks.
  for (const task of cleanups.reverse()) await task();
  for (const f of files) await rm(f.path, { force: true });
  if (workdir) await rm(workdir, { recursive: true, force: true });
  const leftovers = (await readdir(dir)).filter((f) => f.startsWith('multer-') || f.startsWith('work-'));
  return { bag, seen, error, leftovers };
}

t.test('upload.file hands the checked file, named for its content, to the calls', async (t) => {
  const file = await upload('file', JPEG);
  const { bag, seen, error, leftovers } = await run(PHOTO, { caption: 'hi' }, [file]);
  t.equal(error, undefined);
  t.equal(bag?.file, `${file.path}.jpg`);
  t.equal(bag?.caption, 'hi');
  t.same(Object.values(seen), [JPEG]);
  t.same(leftovers, [], 'no temp file after cleanup');
});

t.test('content that is not the declared kind is a 422 naming the field', async (t) => {
  const cases: [RouteSpec, string, Buffer, RegExp][] = [
    [PHOTO, 'file', TEXT, /expected an image .* got content of an unrecognised type/],
    [PHOTO, 'file', MP4, /expected an image .* got video\/mp4/],
    [VIDEO, 'file', JPEG, /expected a video .* got image\/jpeg/],
    [VIDEO, 'thumbnail', MP4, /expected an image/],
    [VOICE, 'file', JPEG, /expected an audio file/],
    [STORY, 'file', M4A, /expected an image or a video, got audio\/x-m4a/],
  ];
  for (const [r, field, bytes, problem] of cases) {
    const files = [await upload(field, bytes)];
    if (field !== 'file') files.push(await upload('file', MP4));
    const { bag, error, leftovers } = await run(r, {}, files);
    t.equal(bag, undefined, `${r.key} ${field}: no upstream call`);
    t.match(error, { status: 422, errors: [{ param: field, problem }] }, `${r.key} ${field}`);
    t.match(error?.message, new RegExp(field));
    t.same(leftovers, []);
  }
});

t.test('anything goes for a file of kind any; audio for audio', async (t) => {
  t.match(await run(ANY, {}, [await upload('file', TEXT)]), { bag: { file: /multer-\d+$/ } }, 'no extension to add for unknown content');
  t.match(await run(VOICE, {}, [await upload('file', M4A)]), { bag: { file: /\.m4a$/ } });
});

t.test("per-kind limits: a file over its kind's limit is a 413 naming the field", async (t) => {
  const small = { UPLOAD_MAX_IMAGE_MB: String(1000 / (1024 * 1024)), UPLOAD_MAX_VIDEO_MB: String(3000 / (1024 * 1024)) };
  const photo = await run(PHOTO, {}, [await upload('file', JPEG)], small);
  t.match(photo.error, {
    status: 413,
    excType: 'PayloadTooLarge',
    errors: [{ param: 'file', problem: /2 KB is over the 1000 bytes limit for image files \(UPLOAD_MAX_IMAGE_MB\)/ }],
  });
  t.equal(photo.bag, undefined);
  t.same(photo.leftovers, []);
  // image_or_video: the limit of what the file turns out to be
  const story = await run(STORY, {}, [await upload('file', MP4)], { ...small, UPLOAD_MAX_IMAGE_MB: '1' });
  t.match(story.error, { status: 413, errors: [{ param: 'file', problem: /UPLOAD_MAX_VIDEO_MB/ }] });
  const fits = await run(STORY, {}, [await upload('file', JPEG)], { ...small, UPLOAD_MAX_IMAGE_MB: '1' });
  t.equal(fits.error, undefined, 'a small image passes although the video limit is lower');
  const thumb = await run(VIDEO, {}, [await upload('file', MP4), await upload('thumbnail', JPEG)], { UPLOAD_MAX_IMAGE_MB: String(1000 / (1024 * 1024)) });
  t.match(thumb.error, { status: 413, errors: [{ param: 'thumbnail' }] });
});

t.test('album: every file checked, paths in order with their extensions', async (t) => {
  const files = [await upload('files', JPEG), await upload('files', MP4), await upload('files', JPEG)];
  const { bag, leftovers } = await run(ALBUM, {}, files);
  t.same(bag?.files, [`${files[0].path}.jpg`, `${files[1].path}.mp4`, `${files[2].path}.jpg`]);
  t.same(leftovers, []);
  const bad = await run(ALBUM, {}, [await upload('files', JPEG), await upload('files', TEXT)]);
  t.match(bad.error, { status: 422, errors: [{ param: 'files' }] });
  t.same(bad.leftovers, []);
});

t.test('story: the content decides as_video; an explicit true on an image is refused', async (t) => {
  t.match(await run(STORY, { as_video: false }, [await upload('file', MP4)]), { bag: { as_video: true } });
  t.match(await run(STORY, { as_video: false }, [await upload('file', JPEG)]), { bag: { as_video: false } });
  t.match(await run(STORY, {}, [await upload('file', JPEG)]), { bag: { as_video: false } });
  t.match(await run(STORY, { as_video: true }, [await upload('file', MP4)]), { bag: { as_video: true } });
  t.match(await run(STORY, { as_video: true }, [await upload('file', JPEG)]), {
    error: { status: 422, errors: [{ param: 'file', problem: /as_video is true/ }] },
  });
  t.match(await run(PHOTO, {}, [await upload('file', JPEG)]), { bag: { as_video: undefined } }, 'no as_video where the route has none');
});

t.test('decorations: mentions, locations and hashtags without a position are centred', async (t) => {
  const input = {
    mentions: [{ user: { pk: '1' } }, { user: { pk: '2' }, x: 0.1, y: 0.9, width: null }],
    locations: [{ location: { name: 'Park' } }],
    hashtags: [{ hashtag: { name: 'sun' }, rotation: 0.25 }],
    links: [{ webUri: 'https://example.com' }],
    stickers: [{ type: 'gif', x: 0.3, y: 0.3, width: 0.1, height: 0.1 }],
  };
  const { bag } = await run(STORY, input, [await upload('file', JPEG)]);
  t.same(CENTRED, { x: 0.5, y: 0.5, width: 0.5, height: 0.2, rotation: 0 });
  t.same(bag?.mentions, [
    { user: { pk: '1' }, x: 0.5, y: 0.5, width: 0.5, height: 0.2, rotation: 0 },
    { user: { pk: '2' }, x: 0.1, y: 0.9, width: 0.5, height: 0.2, rotation: 0 },
  ]);
  t.same(bag?.locations, [{ location: { name: 'Park' }, x: 0.5, y: 0.5, width: 0.5, height: 0.2, rotation: 0 }]);
  t.same(bag?.hashtags, [{ hashtag: { name: 'sun' }, x: 0.5, y: 0.5, width: 0.5, height: 0.2, rotation: 0.25 }]);
  t.same(bag?.links, input.links, 'links keep the upstream defaults');
  t.same(bag?.stickers, input.stickers);
  t.same(input.mentions[0], { user: { pk: '1' } }, 'the engine bag is not changed');
});

// ── upload.url against a loopback server ─────────────────────────────────────────────────────

const served: Record<string, Buffer> = { '/photo.jpg': JPEG, '/clip.mp4': MP4, '/page.html': TEXT };
const { base, port, hits } = await loopbackServer(t, (req, res) => {
  const body = served[req.url ?? ''];
  if (req.url === '/to-loopback') res.writeHead(302, { location: `http://[::1]:${port}/photo.jpg` }).end();
  else if (body) res.writeHead(200, { 'content-length': body.length }).end(body);
  else res.writeHead(404).end();
});
const ALLOW = { FETCH_ALLOW: '127.0.0.1' };

t.test('upload.url fetches each URL into the workdir and hands its path to the calls', async (t) => {
  const { bag, seen, error, leftovers } = await run(VIDEO_URL, { url: `${base}/clip.mp4`, thumbnail_url: `${base}/photo.jpg` }, [], ALLOW);
  t.equal(error, undefined);
  t.match(bag, { url: /\/work-[^/]+\/fetched-[^/]+\.mp4$/, thumbnail_url: /\.jpg$/ });
  t.same(
    Object.values(seen)
      .map((b) => b.length)
      .sort(),
    [JPEG.length, MP4.length].sort(),
  );
  t.same(leftovers, []);
  const story = await run(STORY_URL, { url: `${base}/clip.mp4`, as_video: false, mentions: [{ user: { pk: '1' } }] }, [], ALLOW);
  t.match(story.bag, { as_video: true, mentions: [CENTRED] });
});

t.test('upload.url refusals are 422s that name the field and say why', async (t) => {
  const cases: [InputBag, Record<string, string>, string, RegExp, string][] = [
    [{ url: `${base}/clip.mp4` }, {}, 'url', /127\.0\.0\.1 is a loopback address/, 'address'],
    [{ url: `http://[::1]:${port}/clip.mp4` }, {}, 'url', /::1 is a loopback address/, 'address'],
    [{ url: `${base}/to-loopback` }, ALLOW, 'url', /::1 is a loopback address/, 'address'],
    [{ url: `${base}/clip.mp4`, thumbnail_url: `http://169.254.169.254/latest/meta-data/` }, ALLOW, 'thumbnail_url', /cloud metadata/, 'address'],
    [{ url: `${base}/missing.mp4` }, ALLOW, 'url', /answered HTTP 404/, 'status'],
  ];
  for (const [input, extra, field, why, reason] of cases) {
    const { bag, error, leftovers } = await run(VIDEO_URL, input, [], extra);
    t.equal(bag, undefined);
    t.match(
      error,
      { status: 422, excType: 'UrlNotFetched', message: new RegExp(`${field} was not fetched`), errors: [{ param: field, problem: why }], extra: { reason } },
      JSON.stringify(input),
    );
    t.same(leftovers, []);
  }
  t.same(
    hits.filter((h) => h === '/photo.jpg'),
    [],
    'the redirect target was never fetched',
  );
  const wrong = await run(VIDEO_URL, { url: `${base}/page.html` }, [], ALLOW);
  t.match(wrong.error, { status: 422, errors: [{ param: 'url', problem: /expected a video/ }] });
  t.same(wrong.leftovers, []);
});

t.test('upload.url: a file over the limit is a 413 and leaves nothing behind', async (t) => {
  const tiny = { ...ALLOW, UPLOAD_MAX_VIDEO_MB: String(100 / (1024 * 1024)) };
  const { error, leftovers } = await run(VIDEO_URL, { url: `${base}/clip.mp4` }, [], tiny);
  t.match(error, { status: 413, errors: [{ param: 'url', problem: /over the 100 bytes limit/ }], extra: { reason: 'size' } });
  t.same(leftovers, []);
  const capped = await run(VIDEO_URL, { url: `${base}/clip.mp4` }, [], { ...ALLOW, FETCH_MAX_MB: String(100 / (1024 * 1024)) });
  t.match(capped.error, { status: 413 });
  t.ok(!existsSync(path.join(dir, 'work-')), 'workdir removed');
});
