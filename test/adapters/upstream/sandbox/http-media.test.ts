// The sandbox over HTTP: the media state machines of the behaviour document (media like, comment like
// and pin, clip pin, save, archive, profile pin, livestream) moved through the real product and read
// back through read routes, then moved back; and comments and uploads appearing where users look.
import t from 'tap';
import { sandboxFileBytes } from '../../../../adapters/upstream/sandbox/index.js';
import { demoOverHttp } from '../../../helpers/full-app.js';
import type { R } from '../../../helpers/session-http.js';

const DEMO = '5000000001';
// The world only picks subjects (someone else's post, one of demo's reels); assertions read HTTP.
const { p, headers, request, call, walk, world, demo } = await demoOverHttp(t);

const pks = (list: R[]) => list.map((x) => String(x.pk));
const media = (pk: string) => call('GET', '/media', { pk });
const others = [...world.media.values()].filter(
  (m) => m.owner !== DEMO && !m.archived && !m.likers.has(DEMO) && !world.users.get(m.owner)!.isPrivate && m.comments.length > 0,
);
const mine = demo.media.map((pk) => world.media.get(pk)!).filter((m) => !m.archived && !m.pinned);

t.test('media like → liked → unlike (GET /media has_liked and like_count, /media/likers, /account/liked/media)', async (t) => {
  const m = others[0];
  const id = `${m.pk}_${m.owner}`;
  const before = await media(m.pk);
  t.equal(before.has_liked, false, 'not liked at first');
  t.equal(await call('POST', '/media/like', { media_id: id }), true, 'POST /media/like answers true');
  t.match(await media(m.pk), { has_liked: true, like_count: before.like_count + 1 }, 'liked, one more like');
  t.ok(pks(await call('GET', '/media/likers', { media_id: id })).includes(DEMO), 'demo among GET /media/likers');
  t.equal((await call('GET', '/account/liked/media', { amount: 1 }))[0]?.pk, m.pk, 'first in GET /account/liked/media');
  t.equal(await call('DELETE', '/media/like', { media_id: id }), true, 'DELETE /media/like answers true');
  t.match(await media(m.pk), { has_liked: false, like_count: before.like_count }, 'unliked, count back');
  t.notOk(pks(await call('GET', '/media/likers', { media_id: id })).includes(DEMO), 'gone from likers');
  t.notOk(pks(await call('GET', '/account/liked/media', { amount: 200 })).includes(m.pk), 'gone from liked media');
});

t.test('comment like → liked → unlike (GET /media/comments has_liked and like_count, /media/comment/likers)', async (t) => {
  const m = others[1];
  const find = async (pk: string) => (await walk('/media/comments', { media_id: m.pk, amount: 50 })).find((c) => c.pk === pk)!;
  const target = (await call('GET', '/media/comments', { media_id: m.pk })).items[0];
  t.equal(target.has_liked, false, 'not liked at first');
  t.equal(await call('POST', '/media/comment/like', { comment_pk: target.pk }), true, 'POST answers true');
  t.match(await find(target.pk), { has_liked: true, like_count: target.like_count + 1 }, 'liked in GET /media/comments');
  t.ok(pks(await call('GET', '/media/comment/likers', { comment_pk: target.pk })).includes(DEMO), 'demo among the likers');
  t.equal(await call('DELETE', '/media/comment/like', { comment_pk: target.pk }), true, 'DELETE answers true');
  t.match(await find(target.pk), { has_liked: false, like_count: target.like_count }, 'unliked');
  t.notOk(pks(await call('GET', '/media/comment/likers', { comment_pk: target.pk })).includes(DEMO), 'gone from the likers');
});

t.test('comments appear where users look; comment pin leads the list and unpin restores the order', async (t) => {
  const m = mine.find((x) => x.comments.length > 2)!;
  const first = async () => (await call('GET', '/media/comments', { media_id: m.pk, amount: 5 })).items[0].pk;
  const count = (await media(m.pk)).comment_count;
  const created = await call('POST', '/media/comment', { media_id: `${m.pk}_${DEMO}`, text: 'Over HTTP' });
  t.match(created, { text: 'Over HTTP', user: { pk: DEMO } }, 'POST /media/comment answers the comment');
  t.equal(await first(), created.pk, 'the new comment leads GET /media/comments');
  const reply = await call('POST', '/media/comment', { media_id: m.pk, text: 'A reply', replied_to_comment_id: created.pk });
  t.same(pks(await call('GET', '/media/comment/replies', { media_id: m.pk, comment_id: created.pk })), [reply.pk], 'the reply in GET /media/comment/replies');
  t.equal((await media(m.pk)).comment_count, count + 2, 'GET /media counts both');
  const older = (await walk('/media/comments', { media_id: m.pk, amount: 50 })).at(-1)!.pk;
  t.equal(await call('POST', '/media/comment/pin', { media_id: m.pk, comment_pk: older }), true, 'POST /media/comment/pin answers true');
  t.equal(await first(), older, 'a pinned comment leads GET /media/comments');
  t.equal(await call('DELETE', '/media/comment/pin', { media_id: m.pk, comment_pk: older }), true, 'DELETE /media/comment/pin answers true');
  t.equal(await first(), created.pk, 'unpinned: newest first again');
  t.equal(await call('DELETE', '/media/comment', { media_id: m.pk, comment_pk: created.pk }), true, 'DELETE /media/comment');
  t.notOk(pks(await walk('/media/comments', { media_id: m.pk, amount: 50 })).includes(created.pk), 'deleted: gone');
});

t.test('clip pin and unpin', async (t) => {
  const clip = demo.media.find((pk) => world.media.get(pk)!.kind === 'clip' && !world.media.get(pk)!.clipPinned)!;
  const reels = async () => pks(await walk('/user/reels', { username: 'demo', amount: 5 }));
  const before = await reels();
  t.not(before[0], clip, 'not leading at first');
  t.equal(await call('POST', '/clip/pin', { media_pk: clip }), true, 'POST /clip/pin answers true');
  const pinned = await reels();
  t.equal(pinned[0], clip, 'the pinned reel leads GET /user/reels');
  t.same([...pinned].sort(), [...before].sort(), 'paged across the pin, every reel once');
  t.equal(await call('DELETE', '/clip/pin', { media_pk: clip }), true, 'DELETE /clip/pin answers true');
  t.same(await reels(), before, 'unpinned: the reels tab as before');
});

t.test('save → saved → unsave (GET /account/collection/media, GET /account/collections)', async (t) => {
  const m = others[2];
  const col = demo.collections[0];
  const inCollection = async (collection_pk: string) => pks(await call('GET', '/account/collection/media', { collection_pk, amount: 200 })).includes(m.pk);
  const mediaCount = async () => (await call('GET', '/account/collections')).find((c: R) => c.id === col).media_count;
  const before = await mediaCount();
  t.notOk(await inCollection('ALL_MEDIA_AUTO_COLLECTION'), 'not saved at first');
  t.equal(await call('POST', '/media/save', { media_id: m.pk }), true, 'POST /media/save answers true');
  t.ok(await inCollection('ALL_MEDIA_AUTO_COLLECTION'), 'in the saved posts');
  t.equal(await call('POST', '/media/save', { media_id: m.pk, collection_pk: col }), true, 'saved to a collection');
  t.ok(await inCollection(col), 'in that collection');
  t.equal(await mediaCount(), before + 1, 'GET /account/collections counts it');
  const collections = await call('GET', '/account/collections');
  t.match(collections[0], { id: 'ALL_MEDIA_AUTO_COLLECTION', name: 'All posts' }, 'GET /account/collections lists "All posts" first, as its description says');
  t.same(
    collections.slice(1).map((c: R) => c.id),
    demo.collections,
    'then the named collections',
  );
  const all = await call('GET', '/account/collection', { name: 'All posts' });
  t.same(
    await call('GET', '/account/collection', { collection_pk: 'ALL_MEDIA_AUTO_COLLECTION' }),
    all,
    'GET /account/collection by name and by collection_pk agree',
  );
  t.match(all, { id: 'ALL_MEDIA_AUTO_COLLECTION', media_count: collections[0].media_count }, '"All posts" counts every saved post');
  t.ok(pks(await call('GET', '/account/collection/media', { name: 'All posts' })).includes(m.pk), 'GET /account/collection/media by name "All posts" has it');
  t.equal(await call('DELETE', '/media/save', { media_id: m.pk }), true, 'DELETE /media/save answers true');
  t.notOk(await inCollection('ALL_MEDIA_AUTO_COLLECTION'), 'gone from the saved posts');
  t.notOk(await inCollection(col), 'and from the collection');
  t.equal(await mediaCount(), before, 'count back');
});

t.test('archive → archived → unarchive (GET /user/posts, GET /account/archive/media)', async (t) => {
  const m = mine[0];
  const posts = async () => pks(await walk('/user/posts', { username: 'demo', amount: 200 }));
  const archive = async () => pks(await walk('/account/archive/media', { amount: 200 }));
  t.ok((await posts()).includes(m.pk), 'on the profile at first');
  t.equal(await call('POST', '/media/archive', { media_id: `${m.pk}_${DEMO}` }), true, 'POST /media/archive answers true');
  t.notOk((await posts()).includes(m.pk), 'gone from GET /user/posts');
  t.ok((await archive()).includes(m.pk), 'in GET /account/archive/media');
  t.equal(await call('DELETE', '/media/archive', { media_id: `${m.pk}_${DEMO}` }), true, 'DELETE /media/archive answers true');
  t.ok((await posts()).includes(m.pk), 'back on the profile');
  t.notOk((await archive()).includes(m.pk), 'gone from the archive');
});

t.test('profile pin → pinned → unpin (GET /user/pinned/posts)', async (t) => {
  const m = mine[1];
  const pinned = async () => pks(await call('GET', '/user/pinned/posts', { user_id: DEMO }));
  t.notOk((await pinned()).includes(m.pk), 'not pinned at first');
  t.equal(await call('POST', '/media/pin', { media_pk: m.pk }), true, 'POST /media/pin answers true');
  t.equal((await pinned())[0], m.pk, 'leads GET /user/pinned/posts');
  t.equal(await call('DELETE', '/media/pin', { media_pk: m.pk }), true, 'DELETE /media/pin answers true');
  t.notOk((await pinned()).includes(m.pk), 'unpinned: gone');
});

t.test('PATCH /media/seen and PATCH /story/seen answer true (aiograpi: status == "ok")', async (t) => {
  const story = [...demo.following].map((pk) => world.users.get(pk)!).find((u) => u.stories.length > 0)!.stories[0];
  t.equal(await call('PATCH', '/media/seen', { media_ids: [`${others[3].pk}_${others[3].owner}`] }), true, 'PATCH /media/seen');
  t.equal(await call('PATCH', '/story/seen', { story_pks: [story] }), true, 'PATCH /story/seen');
});

t.test('livestream: created → started → ended over PATCH, any other move a 422 naming the state', async (t) => {
  const created = await call('POST', '/media/livestream', { title: 'HTTP live' });
  t.match(created, { broadcast_id: /^\d+$/, broadcast_status: 'created' }, 'POST /media/livestream answers the stream server metadata');
  const broadcast_id = created.broadcast_id;
  const state = async () => (await call('GET', '/media/livestream', { broadcast_id })).broadcast_status;
  const move = (to: string) => request('PATCH', '/media/livestream', { broadcast_id, state: to });
  const refused = async (to: string, from: string) => {
    const reply = await move(to);
    t.equal(reply.status, 422, `${from} → ${to} is refused`);
    t.match(reply.body, { exc_type: 'ClientBadRequestError', detail: new RegExp(`'${from}'`) }, 'naming the state');
    t.equal(await state(), from, `still ${from}`);
  };
  t.equal(await state(), 'created');
  await refused('ended', 'created');
  t.match(await move('started'), { status: 200, body: true }, 'created → started answers true');
  t.equal(await state(), 'started');
  await refused('started', 'started');
  t.match(await move('ended'), { status: 200, body: true }, 'started → ended answers true');
  t.equal(await state(), 'ended');
  await refused('started', 'ended');
  await refused('ended', 'ended');
});

t.test("a photo upload appears first in the uploader's posts, under its hashtag and in the tagged user's posts", async (t) => {
  const friend = [...demo.following][0];
  const count = async () => (await call('GET', '/user', { username: 'demo' })).media_count;
  const before = await count();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(sandboxFileBytes('jpeg', 'upload'))], { type: 'image/jpeg' }), 'photo.jpg');
  form.append('caption', 'Fresh over HTTP #httpfresh');
  form.append('usertags', JSON.stringify([{ user: { pk: friend }, x: 0.2, y: 0.3 }]));
  const reply = await p.client.request('POST', '/photo/upload', { body: form, headers });
  t.equal(reply.status, 200, reply.text.slice(0, 300));
  const post = reply.body as R;
  t.match(post, { media_type: 1, caption_text: 'Fresh over HTTP #httpfresh', user: { pk: DEMO } }, 'answers the new post');
  t.equal((await call('GET', '/user/posts', { username: 'demo', amount: 1 })).items[0]?.pk, post.pk, 'first in GET /user/posts of demo');
  t.equal(await count(), before + 1, 'GET /user counts it');
  t.equal((await call('GET', '/hashtag/media/recent', { name: 'httpfresh', amount: 5 })).items[0]?.pk, post.pk, 'under its hashtag');
  t.equal((await call('GET', '/user/tagged/posts', { user_id: friend, amount: 1 })).items[0]?.pk, post.pk, "in the tagged user's posts");
  t.match(await media(post.pk), { caption_text: 'Fresh over HTTP #httpfresh', usertags: [{ user: { pk: friend } }] }, 'GET /media reads it back');
});

t.test("GET /user's post count follows an archive, its undoing and a delete, each asked twice (the count is kept between changes)", async (t) => {
  const count = async () => (await call('GET', '/user', { username: 'demo' })).media_count as number;
  const [first, second] = mine.slice(-2).map((m) => `${m.pk}_${DEMO}`);
  const start = await count();
  t.equal(await count(), start, 'asked again, unchanged');
  t.equal(await call('POST', '/media/archive', { media_id: first }), true);
  t.equal(await count(), start - 1, 'an archived post is not counted');
  t.equal(await count(), start - 1, 'and stays uncounted');
  t.equal(await call('DELETE', '/media/archive', { media_id: first }), true);
  t.equal(await count(), start, 'unarchived, counted again');
  t.equal(await call('DELETE', '/media', { media_id: second }), true);
  t.equal(await count(), start - 1, 'a deleted post is not counted');
  t.equal(await count(), start - 1, 'and stays uncounted');
});
