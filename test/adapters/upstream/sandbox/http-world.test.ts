// World data over HTTP where the platform has some: notes on posts and reels, comments on a
// running livestream, AI chat characters, broadcast channels, fundraisers and reel templates.
import t from 'tap';
import { createSandbox, type SandboxAdapter } from '../../../../adapters/upstream/sandbox/index.js';
import { loginAs } from '../../../helpers/sandbox.js';
import { product } from '../../../helpers/full-app.js';
import { sessionHttp, type R } from '../../../helpers/session-http.js';

const DEMO = '5000000001';
const p = await product();
t.teardown(() => p.client.close());
const headers = { 'x-session-id': await p.login() };
const { call, request } = sessionHttp(p.client, headers);
const sandbox = p.app.services.upstream as SandboxAdapter;
const world = sandbox.world;
const demo = world.users.get(DEMO)!;
const reels = demo.media.filter((pk) => world.media.get(pk)!.kind === 'clip' && !world.media.get(pk)!.archived);
const notesOn = async (pk: string) => (await call('GET', '/explore/media', { media_pk: pk })).items[0].media_notes.items as R[];

t.test('media notes: the world has some; POST /media/note adds one, DELETE removes it', async (t) => {
  const seeded = await notesOn(reels[0]);
  t.ok(seeded.length > 0 && seeded[0].user_id !== DEMO, "a friend's note is on demo's latest reel");
  const made = (await call('POST', '/media/note', { media_id: reels[1], text: 'Watch till the end' })).media_note;
  t.match(made, { text: 'Watch till the end', user_id: DEMO, media_id: `${reels[1]}_${DEMO}`, audience: 7, note_style: 13 });
  t.ok(
    (await notesOn(reels[1])).some((n) => n.id === made.id),
    'GET /explore/media: in media_notes.items',
  );
  const feedItem = (await call('GET', '/account/feed/user/stream-item', { item_id: reels[1] })).items[0].media_or_ad;
  t.ok(
    (feedItem.media_notes.items as R[]).some((n) => n.id === made.id),
    'GET /account/feed/user/stream-item too',
  );
  t.equal(await call('DELETE', '/media/note', { note_id: made.id }), true);
  t.notOk(
    (await notesOn(reels[1])).some((n) => n.id === made.id),
    'deleted: gone',
  );
  const again = await request('DELETE', '/media/note', { note_id: made.id });
  t.equal(again.status, 404, 'an id the world no longer has: 404');
  t.equal((again.body as R).exc_type, 'NoteNotFound');
  t.equal((await request('DELETE', '/media/note', { note_id: seeded[0].id })).status, 200, 'the owner of the media may delete a note on it');
});

t.test('a started livestream has viewers who comment as time passes', async (t) => {
  const { broadcast_id } = await call('POST', '/media/livestream', { title: 'Sandbox live' });
  const comments = async () => (await call('GET', '/media/livestream/comments', { broadcast_id })) as R;
  t.equal((await comments()).comment_count, 0, 'created: no comments');
  t.equal(await call('PATCH', '/media/livestream', { broadcast_id, state: 'started' }), true);
  const greeted = await comments();
  t.ok(greeted.comment_count > 0, `started: the audience says hello (${greeted.comment_count})`);
  const viewers = ((await call('GET', '/media/livestream/viewers', { broadcast_id })).users as R[]).map((u) => String(u.pk));
  t.ok(viewers.length > 0 && viewers.every((pk) => demo.followers.has(pk)), "viewers are demo's followers");
  t.ok(
    (greeted.comments as R[]).every((c) => viewers.includes(String(c.user.pk)) && typeof c.text === 'string'),
    'comments come from the viewers',
  );
  t.equal((await call('GET', '/media/livestream', { broadcast_id })).viewer_count, viewers.length);
});

t.test('livestream comments keep coming while it runs, and stop when it ends', async (t) => {
  let clock = Date.UTC(2025, 5, 1, 12);
  const timed = createSandbox({ seed: 1, now: () => clock });
  const c = await loginAs(timed);
  const { broadcast_id } = (await c.call('media_create_livestream', { title: 'Timed' })) as R;
  await c.call('media_start_livestream', { broadcast_id });
  const comments = async () => (await c.call('media_get_livestream_comments', { broadcast_id })) as R;
  const first = await comments();
  clock += 60_000;
  const later = await comments();
  t.equal(later.comment_count, first.comment_count + 6, 'a minute later, one more every 10 seconds');
  t.same(
    (later.comments as R[]).slice(0, first.comment_count).map((x) => x.pk),
    (first.comments as R[]).map((x) => x.pk),
    'earlier comments keep their pks',
  );
  await c.call('media_end_livestream', { broadcast_id });
  clock += 60_000;
  t.equal((await comments()).comment_count, later.comment_count, 'ended: no new comments');
});

t.test('AI chat characters, channels and fundraisers', async (t) => {
  const bots = (await call('GET', '/direct/genai/bots', { amount: 3 })) as R[];
  t.equal(bots.length, 3, 'amount bounds the bots');
  t.ok(
    bots.every((b) => typeof b.username === 'string' && b.pk),
    'UserShort records',
  );
  t.equal((await call('GET', '/user', { user_id: bots[0].pk })).username, bots[0].username, 'each is a user of the world');
  const channels = (await call('GET', '/direct/channels')) as R[];
  t.equal(channels.length, 1, 'demo runs a channel');
  t.match(channels[0], { title: 'Sandbox updates', thread_subtype: 29, creator_igid: DEMO, is_member: true, invite_link: /^https:\/\/ig\.me\/j\// });
  t.same((await call('GET', '/user', { user_id: DEMO })).broadcast_channel, channels, 'and GET /user shows it as broadcast_channel');
  const verified = [...world.users.values()].find((u) => u.isVerified && !u.username.startsWith('sandbox.ai.'))!;
  t.equal(((await call('GET', '/direct/channels', { user_id: verified.pk })) as R[])[0].creator_username, verified.username, "a verified account's channel");
  const fund = await call('GET', '/user/fundraiser', { user_id: DEMO });
  t.equal(fund.has_standalone_fundraiser, true);
  t.match(fund.standalone_fundraiser_info, { owner: { pk: DEMO }, currency: 'USD', can_viewer_donate: false });
  t.ok(
    fund.standalone_fundraiser_info.amount_raised > 0 && fund.standalone_fundraiser_info.goal_amount >= fund.standalone_fundraiser_info.amount_raised,
    'raised part of its goal',
  );
  const none = [...world.users.values()].find((u) => !u.isBusiness && u.pk !== DEMO)!;
  t.same(
    await call('GET', '/user/fundraiser', { user_id: none.pk }),
    { has_standalone_fundraiser: false, standalone_fundraiser_info: null, status: 'ok' },
    'most accounts have none',
  );
});

t.test("GET /clip/template: a reel's cuts and audio, and the reels cut to the same audio", async (t) => {
  const reel = reels.find((pk) => world.media.get(pk)!.track)!;
  const template = await call('GET', '/clip/template', { media_id: reel });
  const info = template.template_info;
  t.equal(info.original_media_id, reel);
  t.ok(info.segments.length >= 2, 'two cuts or more');
  t.equal(info.total_duration_ms, world.media.get(reel)!.duration * 1000, 'the cuts add up to the reel');
  t.equal(info.audio.id, world.media.get(reel)!.track, "the reel's audio");
  t.ok(
    (template.items as R[]).every((i) => i.media.clips_metadata.music_canonical_id === info.audio.music_canonical_id),
    'other reels with that audio',
  );
  t.same(await call('GET', '/clip/template', { media_id: reel }), template, 'the same on every read');
  const photo = demo.media.find((pk) => world.media.get(pk)!.kind === 'photo')!;
  t.equal((await call('GET', '/clip/template', { media_id: photo })).template_info, null, 'a photo has no template');
});
