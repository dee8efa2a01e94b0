// The sandbox over HTTP: the relationship state machines of the behaviour document (follow, follower,
// follow requests, close friends, the four notification flags, block, mute, hashtag follow), each
// moved through the real product and read back through a read route, then moved back.
import t from 'tap';
import { demoOverHttp } from '../../../helpers/full-app.js';
import type { R } from '../../../helpers/session-http.js';

const DEMO = '5000000001';
// The world only picks subjects (a stranger, a private account); every assertion reads HTTP.
const { call, walk, world, demo } = await demoOverHttp(t);

const pks = (list: R[]) => list.map((u) => String(u.pk));
const friendship = (pk: string) => call('GET', '/user/friendship', { user_id: pk });
const unrelated = (isPrivate: boolean) =>
  [...world.users.values()].filter(
    (u) =>
      u.isPrivate === isPrivate && !u.password && !demo.following.has(u.pk) && !demo.followers.has(u.pk) && !demo.requests.has(u.pk) && !u.requests.has(DEMO),
  );
const [stranger] = unrelated(false);
const [privateStranger] = unrelated(true);
const [friendA, friendB, friendC] = [...demo.following].filter((pk) => demo.followers.has(pk) && !demo.closeFriends.has(pk));

t.test('follow → following → unfollow → not following', async (t) => {
  t.match(await friendship(stranger.pk), { following: false, outgoing_request: false }, 'starts unrelated');
  t.equal(await call('POST', '/user/follow', { user_id: stranger.pk }), true, 'POST /user/follow answers true');
  t.equal((await friendship(stranger.pk)).following, true, 'GET /user/friendship: following');
  t.ok(pks(await walk('/user/following', { user_id: DEMO, amount: 200 })).includes(stranger.pk), 'in GET /user/following of demo');
  t.ok(pks(await walk('/user/followers', { user_id: stranger.pk, amount: 200 })).includes(DEMO), 'demo in their GET /user/followers');
  t.equal(await call('DELETE', '/user/follow', { user_id: stranger.pk }), true, 'DELETE /user/follow answers true');
  t.equal((await friendship(stranger.pk)).following, false, 'GET /user/friendship: not following');
  t.notOk(pks(await walk('/user/following', { user_id: DEMO, amount: 200 })).includes(stranger.pk), 'gone from GET /user/following');
});

t.test('following a private account sends a request; unfollow withdraws it', async (t) => {
  t.equal(
    await call('POST', '/user/follow', { user_id: privateStranger.pk }),
    false,
    'false: not following yet (friendship_status.following, as aiograpi answers)',
  );
  t.match(await friendship(privateStranger.pk), { following: false, outgoing_request: true, is_private: true }, 'a request, not a follow');
  t.equal(await call('DELETE', '/user/follow', { user_id: privateStranger.pk }), true);
  t.match(await friendship(privateStranger.pk), { following: false, outgoing_request: false }, 'request withdrawn');
});

t.test('DELETE /user/follower removes a follower', async (t) => {
  const follower = pks((await call('GET', '/user/followers', { user_id: DEMO, amount: 5 })).items).find((pk) => !demo.following.has(pk))!;
  t.equal((await friendship(follower)).followed_by, true, 'starts as a follower');
  t.equal(await call('DELETE', '/user/follower', { user_id: follower }), true, 'answers true');
  t.notOk(pks(await walk('/user/followers', { user_id: DEMO, amount: 200 })).includes(follower), 'gone from GET /user/followers');
  t.equal((await friendship(follower)).followed_by, false, 'GET /user/friendship: no longer followed_by');
});

t.test('follow requests: approve and decline, one and many', async (t) => {
  const pending = pks(await walk('/account/follow/requests', { amount: 10 }));
  t.ok(pending.length >= 6, `demo has pending requests (${pending.length})`);
  const [a, b, c, d, e, f] = pending;
  t.equal((await friendship(a)).incoming_request, true, 'a pending request shows as incoming_request');
  t.equal(await call('POST', '/account/follow/request/approve', { user_id: a }), true, 'approve one');
  t.equal(await call('DELETE', '/account/follow/request', { user_id: b }), true, 'decline one');
  t.same(await call('POST', '/account/follow/requests/approve', { user_ids: [c, d] }), { [c]: true, [d]: true }, 'approve many');
  t.same(await call('DELETE', '/account/follow/requests', { user_ids: [e, f] }), { [e]: true, [f]: true }, 'decline many');
  const left = pks(await walk('/account/follow/requests', { amount: 10 }));
  t.same(
    [a, b, c, d, e, f].filter((pk) => left.includes(pk)),
    [],
    'none of the six is pending any more',
  );
  t.equal(left.length, pending.length - 6, 'the other requests stay pending');
  const followers = pks(await walk('/user/followers', { user_id: DEMO, amount: 200 }));
  t.same(
    [a, c, d].filter((pk) => !followers.includes(pk)),
    [],
    'approved users follow demo',
  );
  t.same(
    [b, e, f].filter((pk) => followers.includes(pk)),
    [],
    'declined users do not',
  );
  t.match(await friendship(a), { followed_by: true, incoming_request: false });
  t.match(await friendship(b), { followed_by: false, incoming_request: false });
  t.equal(await call('POST', '/account/follow/request/approve', { user_id: b }), false, 'a request already answered cannot be approved');
  t.same(await call('DELETE', '/account/follow/requests', { user_ids: [a] }), { [a]: false }, 'nor declined');
});

t.test('close friend: POST adds, DELETE removes (friendship is_bestie)', async (t) => {
  t.equal((await friendship(friendA)).is_bestie, false, 'starts not a close friend');
  // aiograpi answers is_bestie (add) and `is_bestie is False` (remove): true on success both ways.
  t.equal(await call('POST', '/user/close-friend', { user_id: friendA }), true, 'POST /user/close-friend answers true');
  t.equal((await friendship(friendA)).is_bestie, true, 'GET /user/friendship: is_bestie');
  t.equal(await call('DELETE', '/user/close-friend', { user_id: friendA }), true, 'DELETE /user/close-friend answers true');
  t.equal((await friendship(friendA)).is_bestie, false, 'GET /user/friendship: not is_bestie');
});

t.test('the four notification flags are independent (GET /user/stream friendship_status.notifications)', async (t) => {
  const flags = async () => (await call('GET', '/user/stream', { user_id: friendB })).friendship_status.notifications;
  t.same(await flags(), { posts: false, stories: false, reels: false, videos: false }, 'all off at first');
  for (const kind of ['posts', 'stories', 'reels', 'videos']) {
    t.equal(await call('POST', `/user/notifications/${kind}`, { user_id: friendB }), true, `POST ${kind} answers true`);
    t.equal((await flags())[kind], true, `${kind} on`);
    t.equal(await call('DELETE', `/user/notifications/${kind}`, { user_id: friendB }), true, `DELETE ${kind} answers true`);
    t.equal((await flags())[kind], false, `${kind} off`);
  }
  await call('POST', '/user/notifications/stories', { user_id: friendB });
  await call('POST', '/user/notifications/videos', { user_id: friendB });
  t.same(await flags(), { posts: false, stories: true, reels: false, videos: true }, 'two on, two off');
  const byName = await call('GET', '/user/stream', { username: world.users.get(friendB)!.username });
  t.same(byName.friendship_status.notifications, { posts: false, stories: true, reels: false, videos: true }, 'the same by username');
});

t.test('mute posts and stories (friendship muting / is_muting_reel)', async (t) => {
  t.match(await friendship(friendC), { muting: false, is_muting_reel: false });
  t.equal(await call('POST', '/user/mute/posts', { user_id: friendC }), true);
  t.match(await friendship(friendC), { muting: true, is_muting_reel: false }, 'posts muted, stories not');
  t.equal(await call('POST', '/user/mute/stories', { user_id: friendC }), true);
  t.match(await friendship(friendC), { muting: true, is_muting_reel: true }, 'both muted');
  t.equal(await call('DELETE', '/user/mute/posts', { user_id: friendC }), true);
  t.match(await friendship(friendC), { muting: false, is_muting_reel: true }, 'posts unmuted');
  t.equal(await call('DELETE', '/user/mute/stories', { user_id: friendC }), true);
  t.match(await friendship(friendC), { muting: false, is_muting_reel: false }, 'stories unmuted');
  t.equal((await friendship(friendC)).following, true, 'muting never unfollows');
});

t.test('block and unblock (friendship blocking; a block ends the follow both ways)', async (t) => {
  t.match(await friendship(friendC), { blocking: false, following: true, followed_by: true });
  t.equal(await call('POST', '/user/block', { user_id: friendC }), true);
  t.match(await friendship(friendC), { blocking: true, following: false, followed_by: false }, 'blocked');
  t.notOk(pks(await walk('/user/following', { user_id: DEMO, amount: 200 })).includes(friendC), 'gone from GET /user/following');
  t.equal(await call('DELETE', '/user/block', { user_id: friendC }), true);
  t.match(await friendship(friendC), { blocking: false, following: false }, 'unblocked, and still not following');
});

t.test('hashtag follow and unfollow (GET /search/recent lists followed hashtags)', async (t) => {
  const [tag] = [...world.hashtags.keys()];
  const tags = async () => ((await call('GET', '/search/recent')) as [number, R][]).filter(([kind]) => kind === 1).map(([, h]) => h.name);
  t.notOk((await tags()).includes(tag), 'not followed at first');
  t.equal(await call('POST', '/hashtag/follow', { hashtag: tag }), true);
  t.ok((await tags()).includes(tag), 'followed: listed');
  t.equal(await call('DELETE', '/hashtag/follow', { hashtag: tag }), true);
  t.notOk((await tags()).includes(tag), 'unfollowed: gone');
});
