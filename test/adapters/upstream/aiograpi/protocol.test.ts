// The aiograpi adapter's results through a real sidecar and the stand-in library: records, tuples,
// dicts keyed by pk, datetimes, big ids, settings, uploads and downloads, introspection.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PASSWORD, standInAdapter } from '../../../helpers/sidecar.js';

t.test('ready starts the sidecar and learns the library version', async (t) => {
  const adapter = standInAdapter(t);
  t.same(adapter.library, { name: 'aiograpi', version: 'unknown' }, 'unknown before the sidecar has started');
  t.same(adapter.pids(), [undefined], 'lazy: no process yet');
  const ready = await adapter.ready();
  t.equal(ready.ok, true);
  t.match(ready.detail, /^aiograpi 1\.0\.9 \(Python 3\.\d+/);
  const { capabilities, ...library } = adapter.library;
  t.same(library, { name: 'aiograpi', version: '1.0.9' });
  t.match(
    capabilities,
    { login_legacy: false, transport: 'httpx', device_key: false, app_profile_upgrade: true, iterators: [] },
    'what 1.0.9 can do, read from its Client',
  );
  t.type(adapter.pids()[0], 'number');
});

t.test('describe starts a sidecar when none has, so the version is known on the first ask', async (t) => {
  const adapter = standInAdapter(t, { processes: 2 });
  t.same(adapter.pids(), [undefined, undefined], 'nothing started yet');
  const [first, second] = await Promise.all([adapter.describe(), adapter.describe()]);
  t.match(first, { name: 'aiograpi', version: '1.0.9' });
  t.same(second, first);
  t.equal(adapter.pids().filter(Boolean).length, 1, 'one sidecar was enough, started once for both asks');
});

t.test('records, tuples, dicts keyed by pk, datetimes and big ids come back as JSON', async (t) => {
  const adapter = standInAdapter(t);
  const client = await adapter.open({ settings: {} });
  t.same(await client.call('user_info', { user_id: '5000000001' }), {
    pk: '5000000001',
    username: 'demo',
    full_name: 'Demo Account',
    is_private: false,
    media_count: 1,
    follower_count: 5,
    following_count: 0,
    biography: '',
  });
  const page = await client.call('user_followers_v1_chunk', { user_id: '5000000001', max_amount: 2 });
  t.same(
    page,
    [
      [
        { pk: '5000000101', username: 'alice', full_name: 'Alice Example', profile_pic_url: null, is_private: false },
        { pk: '5000000102', username: 'bob', full_name: 'Bob Example', profile_pic_url: null, is_private: true },
      ],
      '2',
    ],
    'a tuple (items, cursor) is an array',
  );
  const byPk = (await client.call('user_followers', { user_id: '5000000001', amount: 2 })) as Record<string, { pk: string }>;
  t.same(Object.keys(byPk), ['5000000101', '5000000102'], 'a dict keyed by pk keeps its keys and order');
  t.equal(byPk['5000000102'].pk, '5000000102');
  const media = (await client.call('media_info', { media_pk: '3001' })) as Record<string, unknown>;
  t.equal(media.taken_at, '2024-01-02T03:04:05+00:00', 'datetimes are ISO 8601');
  t.same(media.user, { pk: '5000000001', username: 'demo', full_name: 'Demo Account', profile_pic_url: null, is_private: null }, 'nested records');
  t.equal(await client.call('media_pk_from_code', { code: 'u5' }), '3001', 'synchronous methods too');
  t.same(await client.call('expose', {}), { status: 'ok', experiment_id: '17841400000000001234', small: 42 }, 'integers past 2**53 cross as strings');
});

t.test('settings: opened with locale and timezone, exported after login, reopened from the export', async (t) => {
  const adapter = standInAdapter(t);
  const fresh = await adapter.open({ settings: {}, locale: 'pt_PT', timezone: 3600, proxy: 'http://127.0.0.1:9' });
  t.equal(await fresh.call('login', { username: 'demo', password: PASSWORD }), true);
  const settings = await fresh.exportSettings();
  t.match(settings, { locale: 'pt_PT', country: 'PT', timezone_offset: 3600, authorization_data: { ds_user_id: '5000000001' } });
  t.notOk('proxy' in settings, 'the export carries no proxy');
  await fresh.close();
  const restored = await adapter.open({ settings });
  t.match(await restored.call('account_info', {}), { pk: '5000000001', username: 'demo' }, 'the restored client is logged in');
  t.same((await restored.exportSettings()).uuids, settings.uuids, 'same device');
});

t.test('uploads get Path objects and records from JSON; downloads write into the folder given', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sg-sidecar-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const adapter = standInAdapter(t);
  const client = await adapter.open({ settings: {} });
  await client.call('login', { username: 'demo', password: PASSWORD });
  const photo = join(dir, 'upload.jpg');
  await writeFile(photo, Buffer.from('\xff\xd8\xff fake jpeg bytes', 'latin1'));
  const media = (await client.call('photo_upload', {
    path: photo,
    caption: 'hi',
    usertags: [{ user: { pk: '5000000101', username: 'alice' }, x: 0.5, y: 0.25 }],
    location: { name: 'Lisbon', lat: 38.7, lng: -9.1 },
  })) as Record<string, unknown>;
  t.match(media, { pk: '3100', caption_text: 'hi', location: { name: 'Lisbon', lat: 38.7 }, extra: { size: '19' } });
  t.match(media.usertags, [{ user: { pk: '5000000101' }, x: 0.5, y: 0.25 }], 'usertags became records (the library reads tag.user.pk)');

  const folder = await mkdtemp(join(dir, 'download-'));
  const path = (await client.call('photo_download', { media_pk: 3001, folder })) as string;
  t.equal(path, join(folder, 'demo_3001.jpg'), 'the path the library wrote');
  t.match((await readFile(path)).toString('latin1'), /stand-in jpeg 3001$/);
});

t.test('introspect lists the public Client methods like the reference audit', async (t) => {
  const adapter = standInAdapter(t);
  const doc = await adapter.introspect();
  t.equal(doc.library, 'aiograpi');
  t.equal(doc.version, '1.0.9');
  t.equal(doc.count, doc.methods.length);
  const names = doc.methods.map((m) => m.name);
  t.ok(names.includes('user_followers_v1_chunk') && names.includes('challenge_code_handler') && names.includes('set_proxy'));
  t.notOk(
    names.some((n) => n.startsWith('_')),
    'no private names',
  );
  t.same(
    doc.methods.find((m) => m.name === 'photo_download'),
    {
      name: 'photo_download',
      area: 'photo',
      mixin: 'DownloadPhotoMixin',
      async: true,
      params: [
        { name: 'media_pk', type: 'int', required: true },
        { name: 'folder', type: 'Path', default: "''", required: false },
        { name: 'overwrite', type: 'bool', default: 'True', required: false },
      ],
      returns: 'Path',
      varargs: false,
      varkw: false,
      signature: "(self, media_pk: int, folder: Path = '', overwrite: bool = True) -> Path",
    },
    'the record has the shape of the shared methods.json',
  );
  t.equal(doc.methods.find((m) => m.name === 'set_proxy')?.area, '__init__', 'areas are the defining files');
});

t.test('the sidecar log reaches the service log at its own level', async (t) => {
  const lines: { level: string; line: string }[] = [];
  const keep = (level: string) => (_msg: string, fields?: Record<string, unknown>) => void lines.push({ level, line: String(fields?.line ?? '') });
  const adapter = standInAdapter(t, { logLevel: 'DEBUG', log: { info: keep('info'), warn: keep('warn'), error: keep('error') } });
  const client = await adapter.open({ settings: {} });
  await client.call('login', { username: 'demo', password: PASSWORD });
  await client.close();
  const debug = lines.filter((l) => l.line.startsWith('DEBUG '));
  t.ok(debug.length > 0, 'debug lines arrived');
  t.ok(
    debug.every((l) => l.level === 'info'),
    'DEBUG and INFO lines are info, not warnings',
  );
  t.notOk(
    lines.some((l) => l.line.startsWith('WARNING ') && l.level !== 'warn'),
    'WARNING lines stay warnings',
  );
});
