// Determinism of the world and paging: every cursor list walks whole without duplicates or gaps,
// and amount bounds each page.
import t, { type Test } from 'tap';
import { createSandbox } from '../../../../adapters/upstream/sandbox/index.js';
import { loginAs } from '../../../helpers/sandbox.js';
import type { UpstreamClient } from '../../../../engine/types.js';
import { errorWith } from '../../../helpers/assert.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const sandbox = createSandbox({ seed: 11, now: () => NOW });
const DEMO = '5000000001';

function fingerprint(seed: number): string {
  const w = createSandbox({ seed, now: () => NOW }).world;
  const users = [...w.users.values()].map((u) => `${u.pk}:${u.username}:${u.followers.size}:${u.media.join(',')}`);
  const media = [...w.media.values()].map((m) => `${m.pk}:${m.caption}:${[...m.likers].join(',')}:${m.comments.join(',')}`);
  const threads = [...w.threads.values()].map((th) => `${th.id}:${th.messages.length}`);
  return JSON.stringify([users, media, threads]);
}

t.test('same seed, same world; another seed, another world', async (t) => {
  t.equal(fingerprint(5), fingerprint(5));
  t.not(fingerprint(5), fingerprint(6));
  // How long generation takes is a figure (bench/boot.ts reports it as sandbox_world_ms), not an
  // assertion: a loaded machine made the old 300 ms bound fail at 307 and 419 ms.
  const started = performance.now();
  createSandbox({ seed: 9 });
  t.comment(`world generation: ${(performance.now() - started).toFixed(0)} ms`);
});

/** Every timestamp a generated world holds, named by where it sits. */
function timestamps(w: ReturnType<typeof createSandbox>['world']): [string, number][] {
  return [
    ...[...w.users.values()].map((u): [string, number] => [`user ${u.pk} joined`, u.joined]),
    ...[...w.media.values()].map((m): [string, number] => [`media ${m.pk}`, m.takenAt]),
    ...[...w.comments.values()].map((c): [string, number] => [`comment ${c.pk}`, c.createdAt]),
    ...[...w.stories.values()].map((s): [string, number] => [`story ${s.pk}`, s.takenAt]),
    ...[...w.highlights.values()].map((h): [string, number] => [`highlight ${h.pk}`, h.createdAt]),
    ...[...w.notes.values()].map((n): [string, number] => [`note ${n.id}`, n.createdAt]),
    ...[...w.threads.values()].map((th): [string, number] => [`thread ${th.id}`, th.createdAt]),
    ...[...w.messages.values()].map((m): [string, number] => [`message ${m.id}`, m.ts]),
    ...[...w.mediaNotes.values()].map((n): [string, number] => [`media note ${n.id}`, n.createdAt]),
    ...[...w.channels.values()].map((c): [string, number] => [`channel ${c.id}`, c.createdAt]),
    ...[...w.fundraisers.values()].map((f): [string, number] => [`fundraiser ${f.id} start`, f.startAt]),
  ];
}

t.test("no generated timestamp is after the world's now, whatever the seed", async (t) => {
  for (const seed of [1, 2, 3, 5, 7, 11, 21, 42, 99, 1234]) {
    // Any minute of the hour: the world's timestamps hang off the whole hour before now.
    const now = NOW + (seed % 60) * 60_000;
    const stamps = timestamps(createSandbox({ seed, now: () => now }).world);
    const future = stamps.filter(([, at]) => at > now / 1000).map(([what, at]) => `${what} at +${at - now / 1000} s`);
    t.same(future.slice(0, 5), [], `seed ${seed}: ${stamps.length} timestamps, none after now (${future.length} are)`);
    t.ok(
      stamps.every(([, at]) => Number.isInteger(at) && at > 1e9),
      `seed ${seed}: whole epoch seconds`,
    );
  }
});

t.test('messages of a thread are in time order and not after now', async (t) => {
  const w = createSandbox({ seed: 3, now: () => NOW }).world;
  const unordered = [...w.threads.values()].filter((th) =>
    th.messages.some((id, i) => i > 0 && w.messages.get(id)!.ts < w.messages.get(th.messages[i - 1])!.ts),
  );
  t.same(
    unordered.map((th) => th.id),
    [],
    "each thread's messages run forward in time",
  );
  t.ok(
    [...w.threads.values()].every((th) => th.messages.every((id) => w.messages.get(id)!.ts >= th.createdAt)),
    'none before its thread began',
  );
});

t.test('the world is large enough for paging to matter', async (t) => {
  const demo = sandbox.world.users.get(DEMO)!;
  t.ok(demo.followers.size >= 120, 'followers');
  t.ok(demo.following.size >= 120, 'following');
  t.ok(demo.media.length >= 40, 'posts');
  t.ok(sandbox.world.users.size >= 300, 'users');
  t.ok(sandbox.world.media.size >= 1000, 'media');
  const kinds = new Set([...sandbox.world.media.values()].map((m) => m.kind));
  t.same([...kinds].sort(), ['album', 'clip', 'igtv', 'photo', 'video']);
});

type Page = (cursor: string) => Promise<[{ pk?: string; id?: string }[], string]>;

async function walk(t: Test, pageOf: Page, amount: number, expected: number, label: string): Promise<void> {
  const seen: string[] = [];
  let cursor = '';
  let pages = 0;
  do {
    const [items, next] = await pageOf(cursor);
    t.ok(items.length <= amount, `${label}: page ${pages} holds at most ${amount}`);
    if (next) t.equal(items.length, amount, `${label}: a full page before the end`);
    seen.push(...items.map((i) => String(i.pk ?? i.id)));
    cursor = next;
    pages++;
  } while (cursor && pages < 500);
  t.equal(new Set(seen).size, seen.length, `${label}: no duplicates`);
  t.equal(seen.length, expected, `${label}: no gaps (${expected} items)`);
}

t.test('cursor lists walk whole', async (t) => {
  const c: UpstreamClient = await loginAs(sandbox);
  const w = sandbox.world;
  const demo = w.users.get(DEMO)!;
  const call = (m: string, k: Record<string, unknown>) => c.call(m, k) as Promise<[{ pk?: string; id?: string }[], string]>;
  await walk(t, (cur) => call('user_followers_v1_chunk', { user_id: DEMO, max_amount: 25, max_id: cur }), 25, demo.followers.size, 'followers');
  await walk(t, (cur) => call('user_following_v1_chunk', { user_id: DEMO, max_amount: 40, max_id: cur }), 40, demo.following.size, 'following');
  const posts = demo.media.filter((pk) => !w.media.get(pk)!.archived).length;
  await walk(t, (cur) => call('user_medias_paginated_v1', { user_id: DEMO, amount: 7, end_cursor: cur }), 7, posts, 'posts');
  await walk(t, (cur) => call('usertag_medias_paginated', { user_id: DEMO, amount: 9, end_cursor: cur }), 9, demo.tagged.length, 'tagged');
  const tag = w.hashtags.get('sandbox')!;
  const visible = tag.media.filter((pk) => !w.media.get(pk)!.archived).length;
  await walk(t, (cur) => call('hashtag_medias_v1_chunk', { name: 'sandbox', max_amount: 10, tab_key: 'recent', max_id: cur }), 10, visible, 'hashtag recent');
  await walk(t, (cur) => call('hashtag_medias_v1_chunk', { name: 'sandbox', max_amount: 10, tab_key: 'top', max_id: cur }), 10, visible, 'hashtag top');
  const loc = [...w.locations.values()].sort((a, b) => b.media.length - a.media.length)[0];
  await walk(
    t,
    (cur) => call('location_medias_v1_chunk', { location_pk: loc.pk, max_amount: 5, tab_key: 'recent', max_id: cur }),
    5,
    loc.media.filter((pk) => !w.media.get(pk)!.archived).length,
    'location',
  );
  const busy = demo.media.find((pk) => w.media.get(pk)!.comments.length >= 60)!;
  await walk(t, (cur) => call('media_comments_chunk', { media_id: busy, max_amount: 15, min_id: cur }), 15, w.media.get(busy)!.comments.length, 'comments');
  const inbox = [...w.threads.values()].filter((th) => th.state.get(DEMO)?.folder === 'inbox').length;
  t.ok(inbox > 20, 'the inbox spans pages');
  await walk(t, (cur) => call('direct_threads_chunk', { cursor: cur }), 20, inbox, 'direct inbox');
  await walk(t, (cur) => call('user_follow_requests_chunk', { max_amount: 10, max_id: cur }), 10, demo.requests.size, 'follow requests');
  await walk(
    t,
    (cur) => call('archive_story_days_paginated_v1', { amount: 4, end_cursor: cur }),
    4,
    (await call('archive_story_days_paginated_v1', { amount: 1000 }))[0].length,
    'story archive days',
  );
});

t.test('comment streams page both ways', async (t) => {
  const c = await loginAs(sandbox);
  const w = sandbox.world;
  const busy = w.users.get(DEMO)!.media.find((pk) => w.media.get(pk)!.comments.length >= 60)!;
  const [first, min0, max0] = (await c.call('media_stream_comments_v1_chunk', { media_id: busy })) as [{ pk: string }[], string, string];
  t.equal(min0, '', 'nothing newer at the top');
  t.ok(max0, 'older comments follow');
  const [second, min1] = (await c.call('media_stream_comments_v1_chunk', { media_id: busy, max_id: max0 })) as [{ pk: string }[], string, string];
  t.equal(second.filter((x) => first.some((y) => y.pk === x.pk)).length, 0, 'no overlap');
  const [back] = (await c.call('media_stream_comments_v1_chunk', { media_id: busy, min_id: min1 })) as [{ pk: string }[]];
  t.same(
    back.map((x) => x.pk),
    first.map((x) => x.pk),
    'min_id pages back',
  );
});

t.test('amount bounds the plain lists', async (t) => {
  const c = await loginAs(sandbox);
  t.equal(((await c.call('direct_threads', { amount: 5 })) as unknown[]).length, 5);
  t.equal(((await c.call('direct_pending_inbox', { amount: 2 })) as unknown[]).length, 2);
  t.equal(((await c.call('reels', { amount: 4 })) as unknown[]).length, 4);
  t.equal(((await c.call('liked_medias', { amount: 3 })) as unknown[]).length, 3);
  t.equal(
    ((await c.call('archive_stories', { amount: 0 })) as unknown[]).length,
    sandbox.world.users.get(DEMO)!.archivedStories.length,
    'amount 0 returns all',
  );
  t.equal(((await c.call('archive_stories', { amount: 2 })) as unknown[]).length, 2);
  const saved = sandbox.world.collections.get(sandbox.world.users.get(DEMO)!.collections[0])!;
  const firstPage = (await c.call('collection_medias', { collection_pk: saved.pk, amount: 2 })) as { pk: string }[];
  const rest = (await c.call('collection_medias', { collection_pk: saved.pk, amount: 100, last_media_pk: firstPage[1].pk })) as { pk: string }[];
  t.equal(firstPage.length + rest.length, saved.media.length, 'last_media_pk continues the list');
  const reels1 = (await c.call('reels', { amount: 5 })) as { pk: string }[];
  const reels2 = (await c.call('reels', { amount: 5, last_media_pk: reels1[4].pk })) as { pk: string }[];
  t.equal(reels2.filter((x) => reels1.some((y) => y.pk === x.pk)).length, 0, 'reels continue after last_media_pk');
  await t.rejects(c.call('user_followers_v1_chunk', { user_id: DEMO, max_id: 'garbage' }), errorWith({ excType: 'WrongCursorError' }));
});
