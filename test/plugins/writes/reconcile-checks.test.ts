// The read-back checks on their own, against a platform answered by hand: what each read shows
// decides done, absent or unknown. A read the library does not have (aiograpi 1.0.9 has no
// story_likers nor hashtag_following) leaves the outcome unknown, naming what to check; a removal
// whose item is missing from a full first page cannot be told either; a state write is confirmed
// only by its own flag of the relationship.
import t from 'tap';
import { type RouteSpec, UpstreamError } from '../../../engine/types.js';
import type { ReadBack } from '../../../plugins/writes/reconcile-checks.js';
import { CHECKS } from '../../../plugins/writes/reconcile-checks.js';
import { reconcile } from '../../../plugins/writes/reconcile.js';

const me = '5000000001';
const route = { key: 'POST /x' } as RouteSpec;

/** A read-back whose platform answers each method from the table (a missing one fails as an unknown method would). */
function readBack(bag: Record<string, unknown>, answers: Record<string, unknown>): ReadBack & { calls: string[] } {
  const calls: string[] = [];
  return {
    bag,
    me,
    since: Date.now(),
    calls,
    async call(method) {
      calls.push(method);
      if (!(method in answers)) throw new Error(`AttributeError: 'Client' object has no attribute '${method}'`);
      if (answers[method] instanceof Error) throw answers[method];
      return answers[method];
    },
  };
}

const run = (check: string, bag: Record<string, unknown>, answers: Record<string, unknown>) => reconcile(route, CHECKS[check], readBack(bag, answers));

t.test('the library line without the read: unknown, naming what to check', async (t) => {
  t.match(await run('story_liked', { story_id: '31_5' }, {}), { state: 'unknown', check: /likes the story.*story_id 31_5/ });
  t.match(await run('hashtag_followed', { hashtag: 'travel' }, {}), { state: 'unknown', check: /follows the hashtag.*hashtag travel/ });
});

t.test('story likes and hashtag follows read back on the 1.12 line', async (t) => {
  const likers = { story_likers: [{ pk: me }] };
  t.same(await run('story_liked', { story_id: '31_5' }, likers), { state: 'done', value: true });
  t.same(await run('story_unliked', { story_id: '31_5' }, likers), { state: 'absent' });
  t.same(await run('story_liked', { story_id: '31_5' }, { story_likers: [{ pk: '7' }] }), { state: 'absent' });
  const tags = { hashtag_following: [{ name: 'travel' }] };
  t.same(await run('hashtag_followed', { hashtag: '#Travel' }, tags), { state: 'done', value: true });
  t.same(await run('hashtag_unfollowed', { hashtag: 'food' }, tags), { state: 'done', value: true });
});

t.test('saves read the saved posts, or the collection given', async (t) => {
  const one = readBack({ media_id: '42_5', collection_pk: '99' }, { collection_medias: [{ pk: '42', id: '42_5' }] });
  t.same(await reconcile(route, CHECKS.saved, one), { state: 'done', value: true });
  const page = (pks: string[]) => ({ collection_medias: pks.map((pk) => ({ pk })) });
  t.same(await run('saved', { media_id: '42_5' }, page(['1', '2'])), { state: 'absent' }, 'a save shows first: missing is not saved');
  t.same(await run('unsaved', { media_id: '42_5' }, page(['1', '2'])), { state: 'done', value: true }, 'a short page is the whole list');
  const full = page(Array.from({ length: 50 }, (_, i) => String(i + 100)));
  t.match(await run('unsaved', { media_id: '42_5' }, full), { state: 'unknown', check: /saved posts/ }, 'a full page may hide it further down');
});

t.test('pins read the pinned posts; mutes, close friends and a removed follower their flag of the relationship', async (t) => {
  t.same(await run('pinned', { media_pk: '42' }, { user_pinned_medias: [{ pk: '42' }] }), { state: 'done', value: true });
  t.same(await run('unpinned', { media_pk: '42' }, { user_pinned_medias: [] }), { state: 'done', value: true });
  const relation = (flags: Record<string, boolean>) => ({ user_friendship_v1: { user_id: '7', ...flags } });
  t.same(await run('posts_muted', { user_id: '7' }, relation({ is_muting_reel: true })), { state: 'absent' }, 'stories muted is not posts muted');
  t.same(await run('stories_muted', { user_id: '7' }, relation({ is_muting_reel: true })), { state: 'done', value: true });
  t.same(await run('posts_unmuted', { user_id: '7' }, relation({ muting: true })), { state: 'absent' });
  t.same(await run('close_friend', { user_id: '7' }, relation({ is_bestie: true })), { state: 'done', value: true });
  t.same(await run('follower_removed', { user_id: '7' }, relation({ followed_by: true })), { state: 'absent' });
  t.same(await run('follower_removed', { user_id: '7' }, relation({ followed_by: false })), { state: 'done', value: true });
});

t.test("a deletion is read back by the platform's not-found for the record, and nothing else", async (t) => {
  const gone = { media_info: new UpstreamError('MediaNotFound', 'Media not found or unavailable') };
  t.same(await run('media_deleted', { media_id: '42_5' }, gone), { state: 'done', value: true });
  t.same(await run('media_deleted', { media_id: '42_5' }, { media_info: { pk: '42' } }), { state: 'absent' }, 'still there');
  const throttled = { media_info: new UpstreamError('PleaseWaitFewMinutes', 'Please wait a few minutes') };
  t.match(await run('media_deleted', { media_id: '42_5' }, throttled), { state: 'unknown', check: /still exists.*media_id 42_5/ });
  const story = { story_info: new UpstreamError('StoryNotFound', 'Story not found') };
  t.same(await run('story_deleted', { story_pk: '31' }, story), { state: 'done', value: true });
  t.match(await run('story_deleted', { story_pk: '31' }, gone), { state: 'unknown' }, "another record's not-found says nothing");
});

t.test("privacy and biography read the account's own record; an answered follow request the relationship", async (t) => {
  const account = { account_info: { is_private: true, biography: 'hello' } };
  t.same(await run('privacy', { is_private: true }, account), { state: 'done', value: true });
  t.same(await run('privacy', { is_private: false }, account), { state: 'absent' });
  t.same(await run('biography', { biography: 'hello' }, account), { state: 'done', value: true });
  t.same(await run('biography', { biography: 'bye' }, account), { state: 'absent' });
  const pending = { user_friendship_v1: { incoming_request: true, followed_by: false } };
  t.same(await run('request_approved', { user_id: '7' }, pending), { state: 'absent' });
  t.same(await run('request_declined', { user_id: '7' }, pending), { state: 'absent' });
  t.same(await run('request_declined', { user_id: '7' }, { user_friendship_v1: { incoming_request: false } }), { state: 'done', value: true });
});

t.test("a conversation's mutes read its own flags", async (t) => {
  const calls = { direct_thread: { id: '9', muted: false, vc_muted: true } };
  t.same(await run('thread_muted', { thread_id: '9' }, calls), { state: 'absent' }, 'calls muted is not the conversation muted');
  t.same(await run('calls_muted', { thread_id: '9' }, calls), { state: 'done', value: true });
  t.same(await run('thread_unmuted', { thread_id: '9' }, calls), { state: 'done', value: true });
});
