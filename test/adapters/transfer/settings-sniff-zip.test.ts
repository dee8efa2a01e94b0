// Settings, content sniffing by kind, content type by extension and the zip stream.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { readZip } from '../../helpers/zip.js';
import {
  checkKind,
  contentTypeFor,
  mimeFitsKind,
  transferSettingsFromEnv,
  transferSettingsFor,
  uniqueNames,
  withExtension,
  zipFiles,
  TRANSFER_DEFAULTS,
  checkAddress,
} from '../../../adapters/transfer/index.js';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(200, 1)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(200, 2)]);
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2'), Buffer.alloc(300, 3)]);
const M4A = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypM4A '), Buffer.from([0, 0, 2, 0]), Buffer.from('M4A isom'), Buffer.alloc(300, 4)]);
const TEXT = Buffer.from('just some text, not media\n');

const MB = 1024 * 1024;

t.test('settings: defaults, overrides, and errors that name the setting', async (t) => {
  const defaults = transferSettingsFromEnv({});
  t.equal(defaults.uploadMaxBytes.image, TRANSFER_DEFAULTS.UPLOAD_MAX_IMAGE_MB * MB);
  t.equal(defaults.fetch.maxRedirects, TRANSFER_DEFAULTS.FETCH_MAX_REDIRECTS);
  t.equal(checkAddress('127.0.0.1', defaults.fetch.allow).allowed, false, 'nothing allow-listed by default');

  const set = transferSettingsFromEnv({
    UPLOAD_MAX_IMAGE_MB: '0.5',
    UPLOAD_MAX_VIDEO_MB: '300',
    UPLOAD_MAX_AUDIO_MB: '2',
    UPLOAD_MAX_ANY_MB: '3',
    FETCH_TIMEOUT_MS: '1500',
    FETCH_CONNECT_TIMEOUT_MS: '700',
    FETCH_MAX_MB: '7',
    FETCH_MAX_REDIRECTS: '0',
    FETCH_ALLOW: '127.0.0.1, ::1,localhost',
    OTHER_COMPONENT_KEY: 'whatever',
  });
  t.same(set.uploadMaxBytes, { image: MB / 2, video: 300 * MB, audio: 2 * MB, any: 3 * MB });
  t.same([set.fetch.readTimeoutMs, set.fetch.connectTimeoutMs, set.fetch.maxBytes, set.fetch.maxRedirects], [1500, 700, 7 * MB, 0]);
  t.equal(checkAddress('::1', set.fetch.allow).allowed, true);
  t.same(set.fetch.allow.hosts, ['localhost']);

  const bad: [Record<string, string>, RegExp][] = [
    [{ UPLOAD_MAX_IMAGE_MB: 'ten' }, /UPLOAD_MAX_IMAGE_MB \(SOCIALGATE_UPLOAD_MAX_IMAGE_MB\) must be a number above 0; got "ten"/],
    [{ UPLOAD_MAX_VIDEO_MB: '0' }, /UPLOAD_MAX_VIDEO_MB/],
    [{ UPLOAD_MAX_AUDIO_MB: '-1' }, /UPLOAD_MAX_AUDIO_MB/],
    [{ FETCH_TIMEOUT_MS: '1.5' }, /FETCH_TIMEOUT_MS .* must be an integer/],
    [{ FETCH_MAX_REDIRECTS: '99' }, /FETCH_MAX_REDIRECTS .* at most 20/],
    [{ FETCH_MAX_MB: 'Infinity' }, /FETCH_MAX_MB/],
    [{ FETCH_ALLOW: '10.0.0.0/40' }, /FETCH_ALLOW \(SOCIALGATE_FETCH_ALLOW\): "10.0.0.0\/40" is not a valid CIDR range/],
    [{ FETCH_ALLOW: 'not a host!' }, /FETCH_ALLOW/],
  ];
  for (const [extra, message] of bad) t.throws(() => transferSettingsFromEnv(extra), message, JSON.stringify(extra));
});

t.test('settings are parsed once per config object', async (t) => {
  const extra = { FETCH_MAX_MB: '5' };
  t.equal(transferSettingsFor(extra), transferSettingsFor(extra));
  t.not(transferSettingsFor(extra), transferSettingsFor({ ...extra }));
});

t.test('kinds accept exactly their media types', async (t) => {
  const table: [string | undefined, string, boolean][] = [
    ['image/jpeg', 'image', true],
    ['image/png', 'image', true],
    ['video/mp4', 'image', false],
    ['video/mp4', 'video', true],
    ['video/quicktime', 'video', true],
    ['image/jpeg', 'video', false],
    ['image/jpeg', 'image_or_video', true],
    ['video/mp4', 'image_or_video', true],
    ['audio/x-m4a', 'image_or_video', false],
    ['audio/x-m4a', 'audio', true],
    ['audio/mpeg', 'audio', true],
    ['video/mp4', 'audio', false],
    ['image/vnd.adobe.photoshop', 'image', false],
    [undefined, 'image', false],
    [undefined, 'any', true],
    ['application/pdf', 'any', true],
  ];
  for (const [mime, kind, fits] of table) t.equal(mimeFitsKind(mime, kind as 'image'), fits, `${mime} as ${kind}`);
});

t.test('content is judged by its bytes', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sg-sniff-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const files: Record<string, Buffer> = { 'photo.bin': JPEG, 'pic.mp4': PNG, clip: MP4, voice: M4A, 'notes.jpg': TEXT };
  for (const [name, bytes] of Object.entries(files)) await writeFile(path.join(dir, name), bytes);
  const at = (name: string): string => path.join(dir, name);

  t.match(await checkKind(at('photo.bin'), 'image'), { ok: true, sniffed: { mime: 'image/jpeg', ext: 'jpg', kind: 'image' } });
  t.match(await checkKind(at('pic.mp4'), 'image'), { ok: true, sniffed: { ext: 'png' } }, 'the name does not matter');
  t.match(await checkKind(at('clip'), 'video'), { ok: true, sniffed: { kind: 'video' } });
  t.match(await checkKind(at('clip'), 'image_or_video'), { ok: true });
  t.match(await checkKind(at('voice'), 'audio'), { ok: true });
  t.match(await checkKind(at('clip'), 'image'), { ok: false, problem: 'expected an image (JPEG, PNG, WebP, HEIC...), got video/mp4' });
  t.match(await checkKind(at('notes.jpg'), 'image'), { ok: false, problem: /got content of an unrecognised type/ });
  t.match(await checkKind(at('notes.jpg'), 'any'), { ok: true, sniffed: {} });
  t.match(await checkKind(at('photo.bin'), 'audio'), { ok: false, problem: /expected an audio file/ });

  const renamed = await withExtension(at('clip'), 'mp4');
  t.equal(renamed, at('clip.mp4'));
  t.same(await readFile(renamed), MP4);
  t.equal(await withExtension(renamed, 'mp4'), renamed, 'no second extension');
  t.equal(await withExtension(at('notes.jpg'), undefined), at('notes.jpg'));
});

t.test('content type by extension', async (t) => {
  const table: [string, string][] = [
    ['/tmp/x/1.jpg', 'image/jpeg'],
    ['a.JPEG', 'image/jpeg'],
    ['b.mp4', 'video/mp4'],
    ['c.m4a', 'audio/mp4'],
    ['d.webp', 'image/webp'],
    ['e.mov', 'video/quicktime'],
    ['f', 'application/octet-stream'],
    ['g.exe', 'application/octet-stream'],
  ];
  for (const [file, type] of table) t.equal(contentTypeFor(file), type, file);
});

t.test('zip stream holds the files byte for byte', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sg-zip-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, 'a.jpg'), JPEG);
  await writeFile(path.join(dir, 'b.mp4'), MP4);
  const sub = path.join(dir, 'sub');
  await import('node:fs/promises').then((fs) => fs.mkdir(sub));
  await writeFile(path.join(sub, 'a.jpg'), PNG);
  const result = zipFiles([path.join(dir, 'a.jpg'), path.join(dir, 'b.mp4'), path.join(sub, 'a.jpg')], 'album-123');
  t.match(result, { kind: 'stream', filename: 'album-123.zip', contentType: 'application/zip' });
  const chunks: Buffer[] = [];
  for await (const chunk of result.stream) chunks.push(chunk as Buffer);
  const entries = readZip(Buffer.concat(chunks));
  t.same([...entries.keys()], ['a.jpg', 'b.mp4', 'a-2.jpg']);
  t.same(entries.get('a.jpg'), JPEG);
  t.same(entries.get('b.mp4'), MP4);
  t.same(entries.get('a-2.jpg'), PNG);
});

t.test('zip of a missing file fails on the stream', async (t) => {
  const result = zipFiles(['/nonexistent/socialgate/x.jpg'], 'x.zip');
  t.equal(result.filename, 'x.zip');
  const consume = async (): Promise<void> => {
    for await (const _ of result.stream) void _;
  };
  await t.rejects(consume(), /ENOENT/);
});

t.test('unique entry names', async (t) => {
  t.same(uniqueNames(['/a/x.jpg', '/b/x.jpg', '/c/x.jpg', '/d/y']), ['x.jpg', 'x-2.jpg', 'x-3.jpg', 'y']);
});
