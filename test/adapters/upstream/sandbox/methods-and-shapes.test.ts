// Every upstream method the route map names exists in the sandbox, takes the upstream's own
// parameters, and answers in the upstream's shapes (field names checked against types.json).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import t from 'tap';
import { authenticator } from 'otplib';
import { createSandbox, TOTP_SEED } from '../../../../adapters/upstream/sandbox/index.js';
import { loginAs, sampleFiles } from '../../../helpers/sandbox.js';
import { SIGNATURES } from '../../../../adapters/upstream/sandbox/methods/signatures.js';
import { UpstreamError } from '../../../../engine/types.js';
import { defaultManifestDir, loadManifest } from '../../../../engine/manifest/load.js';
import { productRegistries } from '../../../../bin/compose.js';
import { testConfig } from '../../../../engine/config.js';
import { errorWith } from '../../../helpers/assert.js';
import { join } from 'node:path';
import { SHARED } from '../../../helpers/root.js';

const shared = (path: string) => join(SHARED, path);
const MAP = shared('spec/route-upstream-map.json');
const METHODS = shared('upstream/aiograpi-1.0.9/methods.json');
const TYPES = shared('upstream/aiograpi-1.0.9/types.json');
const haveShared = existsSync(MAP) && existsSync(METHODS) && existsSync(TYPES);
const SKIP = haveShared ? false : 'the shared spec (../shared/spec, ../shared/upstream) is absent in this checkout';

const sandbox = createSandbox({ seed: 7 });
const files = sampleFiles();
t.teardown(() => rmSync(files.dir, { recursive: true, force: true }));
const folder = `${files.dir}/downloads`;

t.test('every method the route map names is implemented', { skip: SKIP }, async (t) => {
  const map = JSON.parse(readFileSync(MAP, 'utf8')) as { routes: { upstream: string[] }[] };
  const names = [...new Set(map.routes.flatMap((r) => r.upstream))].sort();
  t.equal(names.length, 288);
  t.same(
    names.filter((n) => !sandbox.methods.has(n)),
    [],
    'no method is missing',
  );
});

t.test('the shipped signatures match the upstream methods.json', { skip: SKIP }, async (t) => {
  const upstream = JSON.parse(readFileSync(METHODS, 'utf8')) as { methods: { name: string; params: { name: string }[] }[] };
  const byName = new Map(upstream.methods.map((m) => [m.name, m.params.map((p) => p.name)]));
  const differ = Object.entries(SIGNATURES).filter(
    ([name, decls]) => JSON.stringify(decls.map((d) => (typeof d === 'string' ? d : d[0]))) !== JSON.stringify(byName.get(name)),
  );
  t.same(
    differ.map(([name]) => name),
    [],
    'parameter names and order as upstream',
  );
});

t.test('calling conventions: unknown keyword, missing argument, unknown method', async (t) => {
  const client = await loginAs(sandbox);
  await t.rejects(client.call('user_info', { user_id: '5000000001', nope: 1 }), {
    excType: 'TypeError',
    message: "user_info() got an unexpected keyword argument 'nope'",
  });
  await t.rejects(client.call('user_info', {}), { excType: 'TypeError', message: /missing 1 required positional argument: 'user_id'/ });
  await t.rejects(client.call('no_such_method', {}), errorWith({ excType: 'AttributeError' }));
  t.equal(((await client.call('user_info', { user_id: 5000000001 })) as { pk: string }).pk, '5000000001', 'numeric ids are accepted');
});

// The upstream's annotation is wrong here: aiograpi's collection_medias_by_name returns medias.
const ANNOTATION_FIX: Record<string, string> = { collection_medias_by_name: 'List[Media]' };
// A method behind a `shape: bool` route must answer a real boolean: the shape turns anything else
// into false. Several are annotated None upstream (media_pin, comment_pin, close_friend_add,
// media_seen, the livestream moves) though their code returns `status == "ok"` or is_bestie.
// Routes for a newer library (`since`) call methods 1.0.9 lacks: test/adapters/upstream/sandbox/newer-library-routes.test.ts checks those on 1.12.13.
const BOOL_BACKED = new Set(
  loadManifest(defaultManifestDir(), productRegistries(testConfig()))
    .routes.filter((r) => r.result.shape === 'bool' && !r.since)
    .flatMap((r) => r.calls.filter((c) => !r.result.from || c.as === r.result.from).map((c) => c.method)),
);
const annotationOf = (name: string, returns: ReadonlyMap<string, string>) =>
  ANNOTATION_FIX[name] ?? (BOOL_BACKED.has(name) ? 'bool' : (returns.get(name) ?? 'Any'));

t.test('every method behind a bool route is exercised by the shape check below', async (t) => {
  t.ok(
    ['media_pin', 'comment_unpin', 'close_friend_remove', 'media_seen', 'story_seen', 'media_end_livestream'].every((m) => BOOL_BACKED.has(m)),
    'the manifest names them',
  );
  t.same(
    [...BOOL_BACKED].filter((m) => !(m in SIGNATURES)),
    [],
    'each has a shipped signature, so the shape check calls it',
  );
});

// ── shapes ───────────────────────────────────────────────────────────────────────────────────

type Model = { name: string; bases: string[]; fields: { name: string }[] };
function fieldsOf(models: Map<string, Model>, name: string): string[] {
  const model = models.get(name);
  if (!model) return [];
  return [...model.bases.flatMap((b) => fieldsOf(models, b)), ...model.fields.map((f) => f.name)];
}

/** Checks value against a return annotation such as Tuple[List[Media], str]; returns problems. */
function check(models: Map<string, Model>, annotation: string, value: unknown, where: string): string[] {
  const ann = annotation.replace(/\s/g, '');
  const inner = (prefix: string) => ann.slice(prefix.length, -1);
  const splitTop = (text: string) => {
    const parts: string[] = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '[') depth++;
      else if (text[i] === ']') depth--;
      else if (text[i] === ',' && depth === 0) {
        parts.push(text.slice(start, i));
        start = i + 1;
      }
    }
    return [...parts, text.slice(start)];
  };
  if (/^Optional\[/.test(ann)) return value === null ? [] : check(models, inner('Optional['), value, where);
  if (/^(List|list)\[/.test(ann)) {
    if (!Array.isArray(value)) return [`${where}: expected a list`];
    return value.flatMap((v, i) => check(models, inner(ann.startsWith('List') ? 'List[' : 'list['), v, `${where}[${i}]`));
  }
  if (/^(Tuple|tuple)\[/.test(ann)) {
    const parts = splitTop(inner('Tuple['));
    if (!Array.isArray(value) || value.length !== parts.length) return [`${where}: expected a ${parts.length}-tuple`];
    return parts.flatMap((p, i) => check(models, p, value[i], `${where}[${i}]`));
  }
  if (ann === 'bool') return typeof value === 'boolean' ? [] : [`${where}: expected bool`];
  if (ann === 'str' || ann === 'Path') return typeof value === 'string' ? [] : [`${where}: expected str`];
  if (ann === 'int') return typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value)) ? [] : [`${where}: expected int`];
  if (ann === 'None') return [];
  if (/^(dict|Dict)/.test(ann)) return value !== null && typeof value === 'object' && !Array.isArray(value) ? [] : [`${where}: expected dict`];
  if (/^Union/.test(ann)) return [];
  if (models.has(ann)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${where}: expected ${ann} record`];
    const want = fieldsOf(models, ann);
    const have = Object.keys(value);
    const missing = want.filter((f) => !have.includes(f));
    const extra = have.filter((f) => !want.includes(f));
    return [...missing.map((f) => `${where}: ${ann} lacks ${f}`), ...extra.map((f) => `${where}: ${ann} has unknown field ${f}`)];
  }
  return [];
}

t.test('every method answers its documented shape on a demo client', { skip: SKIP }, async (t) => {
  const models = new Map((JSON.parse(readFileSync(TYPES, 'utf8')) as { models: Model[] }).models.map((m) => [m.name, m]));
  const returns = new Map(
    (JSON.parse(readFileSync(METHODS, 'utf8')) as { methods: { name: string; returns: string }[] }).methods.map((m) => [m.name, m.returns]),
  );
  const client = await loginAs(sandbox);
  const call = (method: string, kwargs: Record<string, unknown> = {}) => client.call(method, kwargs);
  const w = sandbox.world;
  const demo = w.users.get('5000000001')!;
  const friend =
    [...demo.following].map((pk) => w.users.get(pk)!).find((u) => !u.isPrivate && u.media.length > 2 && u.highlights.length)! ??
    [...demo.following].map((pk) => w.users.get(pk)!).find((u) => !u.isPrivate && u.media.length > 2)!;
  const ofKind = (kind: string) => demo.media.find((pk) => w.media.get(pk)!.kind === kind && !w.media.get(pk)!.archived)!;
  const photo = ofKind('photo');
  const commented = demo.media.find((pk) => w.media.get(pk)!.comments.length > 3)!;
  const comment = w.media.get(commented)!.comments[0];
  const story = demo.stories[0];
  const thread = [...w.threads.values()].find((th) => th.state.get(demo.pk)?.folder === 'inbox' && th.messages.length > 2)!;
  const pending = [...w.threads.values()].find((th) => th.state.get(demo.pk)?.folder === 'pending')!;
  const location = [...w.locations.values()].find((l) => l.media.length > 0)!;
  const track = ((await call('search_music', { query: '' })) as Record<string, unknown>[])[0];
  const uploaded = ((await call('photo_upload', { path: files.jpeg, caption: 'to delete' })) as { pk: string }).pk;
  const myStory = ((await call('photo_upload_to_story', { path: files.jpeg })) as { pk: string }).pk;
  const hl = ((await call('highlight_create', { title: 'T', story_ids: [demo.archivedStories[0]] })) as { pk: string }).pk;
  const hlToDelete = ((await call('highlight_create', { title: 'D', story_ids: [demo.archivedStories[1]] })) as { pk: string }).pk;
  const myComment = ((await call('media_comment', { media_id: commented, text: 'mine' })) as { pk: string }).pk;
  const sent = ((await call('direct_send', { text: 'to unsend', thread_ids: [thread.id] })) as { id: string }).id;
  const live = async () => ((await call('media_create_livestream', {})) as { broadcast_id: string }).broadcast_id;
  const mediaUrl = ((await call('media_info', { media_pk: photo })) as { thumbnail_url: string }).thumbnail_url;
  const videoUrl = ((await call('media_info', { media_pk: ofKind('clip') })) as { video_url: string }).video_url;

  // Arguments per parameter name, with per-method overrides where one name means different things.
  const base: Record<string, unknown> = {
    user_id: friend.pk,
    target_user_id: friend.pk,
    user_ids: [friend.pk],
    username: friend.username,
    media_id: photo,
    media_pk: photo,
    media_ids: [photo],
    comment_pk: comment,
    comment_id: comment,
    comment_pks: [myComment],
    story_pk: story,
    story_id: story,
    story_pks: [story],
    story_ids: [demo.archivedStories[2]],
    highlight_pk: hl,
    added_media_ids: [demo.archivedStories[3]],
    removed_media_ids: [demo.archivedStories[3]],
    thread_id: thread.id,
    message_id: thread.messages[0],
    name: 'sandbox',
    hashtag: 'sandbox',
    location_pk: location.pk,
    collection_pk: demo.collections[0],
    query: 'a',
    max_amount: 20,
    text: 'hello',
    caption: 'caption #sandbox',
    title: 'title',
    biography: 'bio',
    path: files.jpeg,
    paths: [files.jpeg, files.mp4],
    cover_path: files.jpeg,
    folder,
    track,
    track_id: track.id,
    music_canonical_id: track.music_canonical_id,
    original_audio_id: track.id,
    original_audio_name: 'A new title',
    seed: TOTP_SEED,
    verification_code: '000000',
    last_json: {},
    settings: {},
    dsn: '',
    content_type: 'likes',
    setting_value: 'everyone',
    old_password: 'demo-password',
    new_password: 'demo-password',
    email: 'demo@example.com',
    code: '123456',
    phone_number: '+15555550100',
    identifier: 'demo',
    external_url: 'https://example.com',
    link_ids: ['x'],
    chained_ids: friend.pk,
    item_id: photo,
    search_surface: 'top_serp',
    lat: 38.72,
    lng: -9.14,
    sticker_pk: '1',
    sessionid: '',
    url: `https://www.instagram.com/p/${((await call('media_info', { media_pk: photo })) as { code: string }).code}/`,
    urls: [mediaUrl],
  };
  const override: Record<string, () => Promise<Record<string, unknown>> | Record<string, unknown>> = {
    login: () => ({ username: 'demo', password: 'demo-password' }),
    login_by_sessionid: async () => ({ sessionid: ((await client.exportSettings()).authorization_data as { sessionid: string }).sessionid }),
    totp_enable: async () => ({ verification_code: authenticator.clone({ epoch: Date.now() }).generate((await call('totp_generate_seed')) as string) }),
    media_delete: () => ({ media_id: uploaded }),
    media_note_delete: async () => ({
      note_id: ((await call('media_note_create', { media_id: photo, text: 'n' })) as { media_note: { id: string } }).media_note.id,
    }),
    delete_note: async () => ({ note_id: ((await call('create_note', { text: 'bye' })) as { id: string }).id }),
    photo_download: () => ({ media_pk: photo, folder }),
    story_download: () => ({ story_pk: story, folder }),
    album_download_by_urls: () => ({ urls: [mediaUrl, videoUrl], folder }),
    direct_send: () => ({ text: 'hi', user_ids: [friend.pk] }),
    direct_profile_share: () => ({ user_id: friend.pk, thread_ids: [thread.id] }),
    direct_story_share: () => ({ story_id: story, thread_ids: [thread.id] }),
    direct_send_cutout_sticker: () => ({ sticker_pk: '1', thread_ids: [thread.id] }),
    direct_send_file: () => ({ path: files.jpeg, thread_ids: [thread.id] }),
    direct_send_photo: () => ({ path: files.jpeg, user_ids: [friend.pk] }),
    story_delete: () => ({ story_pk: myStory }),
    highlight_delete: () => ({ highlight_pk: hlToDelete }),
    highlight_change_cover: () => ({ highlight_pk: hl, cover_path: files.jpeg }),
    direct_message_unsend: () => ({ thread_id: thread.id, message_id: sent }),
    direct_request_approve: () => ({ thread_id: pending.id }),
    direct_thread_update_title: () => ({ thread_id: [...w.threads.values()].find((th) => th.isGroup && th.state.has(demo.pk))!.id, title: 'Renamed' }),
    comment_pin: () => ({ media_id: commented, comment_pk: comment }),
    comment_unpin: () => ({ media_id: commented, comment_pk: comment }),
    comment_bulk_delete: () => ({ media_id: commented, comment_pks: [myComment] }),
    story_viewers_chunk: () => ({ story_pk: story }),
    media_pin: () => ({ media_pk: photo }),
    media_unpin: () => ({ media_pk: photo }),
    clip_pin: () => ({ media_pk: ofKind('clip') }),
    clip_unpin: () => ({ media_pk: ofKind('clip') }),
    media_archive: () => ({ media_id: photo, revert: true }),
    media_unarchive: () => ({ media_id: photo }),
    media_edit: () => ({ media_id: photo, caption: 'edited' }),
    insights_media: () => ({ media_pk: photo }),
    video_download: () => ({ media_pk: ofKind('video'), folder }),
    clip_download: () => ({ media_pk: ofKind('clip'), folder }),
    igtv_download: () => ({ media_pk: ofKind('igtv'), folder }),
    album_download: () => ({ media_pk: ofKind('album'), folder }),
    photo_download_by_url: () => ({ url: mediaUrl, folder }),
    story_download_by_url: () => ({ url: mediaUrl, folder }),
    video_download_by_url: () => ({ url: videoUrl, folder }),
    clip_download_by_url: () => ({ url: videoUrl, folder }),
    igtv_download_by_url: () => ({ url: videoUrl, folder }),
    track_download_by_url: () => ({ url: track.progressive_download_url, folder }),
    video_upload: () => ({ path: files.mp4, caption: 'v' }),
    clip_upload: () => ({ path: files.mp4, caption: 'c' }),
    igtv_upload: () => ({ path: files.mp4, title: 't', caption: 'i' }),
    clip_upload_with_music: () => ({ path: files.mp4, caption: 'c', track }),
    video_upload_to_story: () => ({ path: files.mp4 }),
    video_upload_to_direct: () => ({ path: files.mp4, thread_ids: [thread.id] }),
    direct_send_video: () => ({ path: files.mp4, thread_ids: [thread.id] }),
    direct_send_voice: () => ({ path: files.mp3, thread_ids: [thread.id] }),
    media_pk_from_code: async () => ({ code: ((await call('media_info', { media_pk: photo })) as { code: string }).code }),
    media_oembed: () => ({ url: base.url as string }),
    share_code_from_url: async () => ({ url: 'https://www.instagram.com/s/aGlnaGxpZ2h0OjE3ODk1NDg1MjAxMTA0MDU0' }),
    share_info_by_url: () => ({ url: 'https://www.instagram.com/s/aGlnaGxpZ2h0OjE3ODk1NDg1MjAxMTA0MDU0' }),
    share_info: () => ({ code: 'aGlnaGxpZ2h0OjE3ODk1NDg1MjAxMTA0MDU0' }),
    story_pk_from_url: () => ({ url: `https://www.instagram.com/stories/demo/${story}/` }),
    highlight_pk_from_url: () => ({ url: `https://www.instagram.com/stories/highlights/${hl}/` }),
    media_start_livestream: async () => ({ broadcast_id: await live() }),
    media_end_livestream: async () => {
      const id = await live();
      await call('media_start_livestream', { broadcast_id: id });
      return { broadcast_id: id };
    },
    media_get_livestream_info: async () => ({ broadcast_id: await live() }),
    media_get_livestream_comments: async () => ({ broadcast_id: await live() }),
    media_get_livestream_viewers: async () => ({ broadcast_id: await live() }),
    get_note_by_user: async () => ({ notes: await call('get_notes'), username: 'demo' }),
    get_note_text_by_user: async () => ({ notes: await call('get_notes'), username: 'demo' }),
    collection_medias_by_name: () => ({ name: 'Inspiration' }),
    collection_pk_by_name: () => ({ name: 'Inspiration' }),
    user_follow_request_approve: () => ({ user_id: [...demo.requests][0] }),
    user_follow_request_decline: () => ({ user_id: [...demo.requests][1] }),
    user_follow_requests_approve: () => ({ user_ids: [...demo.requests].slice(2, 4) }),
    user_follow_requests_decline: () => ({ user_ids: [...demo.requests].slice(4, 6) }),
    notification_mute_all: () => ({ setting_value: '1_hour' }),
    change_password: () => ({ old_password: 'demo-password', new_password: 'demo-password' }),
    user_block: () => ({ user_id: [...demo.followers].find((pk) => !demo.following.has(pk))! }),
    user_unblock: () => ({ user_id: [...demo.followers].find((pk) => !demo.following.has(pk))! }),
  };
  // Methods whose upstream annotation is loose (dict/None) or ours documents ids as strings.
  const problems: string[] = [];
  const order = Object.keys(SIGNATURES)
    .filter((n) => n !== 'relogin' && n !== 'set_settings' && n !== 'login_by_sessionid')
    .concat(['login_by_sessionid', 'relogin']);
  for (const name of order) {
    const decls = SIGNATURES[name];
    const kwargs: Record<string, unknown> = {};
    const extra = override[name] ? await override[name]() : {};
    for (const d of decls) if (typeof d === 'string') kwargs[d] = base[d];
    Object.assign(kwargs, extra);
    try {
      const value = await call(name, kwargs);
      problems.push(...check(models, annotationOf(name, returns), value, name));
    } catch (err) {
      problems.push(`${name}: raised ${err instanceof UpstreamError ? `${err.excType}: ${err.message}` : String(err)}`);
    }
  }
  t.same(problems, [], 'every method answers in its shape');
  if (problems.length) console.error(problems.join('\n'));
});
