// Keyed cursors: a list that changes between pages (an item removed, one added) still walks with
// no item twice and no item that is still there skipped. A positional cursor fails each case.
import { rmSync } from 'node:fs';
import t, { type Test } from 'tap';
import { createSandbox } from '../../../../adapters/upstream/sandbox/index.js';
import { loginAs, sampleFiles } from '../../../helpers/sandbox.js';
import type { UpstreamClient } from '../../../../engine/types.js';
import { errorWith } from '../../../helpers/assert.js';

type Item = { pk?: string; id?: string };
type Page = [Item[], string];
const DEMO = '5000000001';
const key = (i: Item) => String(i.id ?? i.pk);
const files = sampleFiles();
t.teardown(() => rmSync(files.dir, { recursive: true, force: true }));

/** Walks a cursor list, changing it after the pages `changes` names (0: after the first); returns every key seen. */
async function walk(pageOf: (cursor: string) => Promise<Page>, changes: Record<number, (items: Item[]) => Promise<void>>): Promise<string[]> {
  const seen: string[] = [];
  let cursor = '';
  for (let pages = 0; pages < 200; pages++) {
    const [items, next] = await pageOf(cursor);
    seen.push(...items.map(key));
    await changes[pages]?.(items);
    if (!next) return seen;
    cursor = next;
  }
  throw new Error('the walk did not end');
}

/** What the walk must show: each item once, and every item present both before and after the change. */
function checkWalk(t: Test, seen: string[], before: string[], after: string[], label: string): void {
  t.equal(new Set(seen).size, seen.length, `${label}: no item twice`);
  const kept = before.filter((k) => after.includes(k));
  t.same(
    kept.filter((k) => !seen.includes(k)),
    [],
    `${label}: no item still there is skipped (${kept.length} kept)`,
  );
}

const fresh = async () => {
  const sandbox = createSandbox({ seed: 4, now: () => Date.UTC(2025, 5, 1, 12) });
  return { sandbox, c: await loginAs(sandbox) };
};
const all = async (c: UpstreamClient, method: string, args: Record<string, unknown>, cursorName: string) => {
  const out: string[] = [];
  let cursor = '';
  do {
    const [items, next] = (await c.call(method, { ...args, [cursorName]: cursor })) as Page;
    out.push(...items.map(key));
    cursor = next;
  } while (cursor);
  return out;
};

t.test('followers: a follower removed after the first page hides no one', async (t) => {
  const { c } = await fresh();
  const page = (cursor: string) => c.call('user_followers_v1_chunk', { user_id: DEMO, max_amount: 10, max_id: cursor }) as Promise<Page>;
  const before = await all(c, 'user_followers_v1_chunk', { user_id: DEMO, max_amount: 10 }, 'max_id');
  const seen = await walk(page, {
    0: async (first) => {
      await c.call('user_remove_follower', { user_id: key(first[3]) });
    },
  });
  const after = await all(c, 'user_followers_v1_chunk', { user_id: DEMO, max_amount: 10 }, 'max_id');
  t.equal(after.length, before.length - 1, 'one follower fewer');
  t.ok(seen.includes(before[10]), 'the follower that was 11th still shows (a position cursor skips it)');
  checkWalk(t, seen, before, after, 'followers');
});

t.test('following: an unfollow and a new follow between pages', async (t) => {
  const { sandbox, c } = await fresh();
  const demo = sandbox.world.users.get(DEMO)!;
  const stranger = [...sandbox.world.users.values()].find((u) => !u.isPrivate && !u.password && u.pk !== DEMO && !demo.following.has(u.pk))!;
  const page = (cursor: string) => c.call('user_following_v1_chunk', { user_id: DEMO, max_amount: 10, max_id: cursor }) as Promise<Page>;
  const before = await all(c, 'user_following_v1_chunk', { user_id: DEMO, max_amount: 10 }, 'max_id');
  const seen = await walk(page, {
    0: async (first) => {
      await c.call('user_unfollow', { user_id: key(first[0]) });
      await c.call('user_follow', { user_id: stranger.pk });
    },
  });
  const after = await all(c, 'user_following_v1_chunk', { user_id: DEMO, max_amount: 10 }, 'max_id');
  t.ok(after.includes(stranger.pk) && seen.includes(stranger.pk), 'the new follow comes later in the walk (follows list oldest first)');
  checkWalk(t, seen, before, after, 'following');
});

t.test('comments: a comment posted after page 1, one deleted after page 2', async (t) => {
  const { sandbox, c } = await fresh();
  const w = sandbox.world;
  const busy = w.users.get(DEMO)!.media.find((pk) => w.media.get(pk)!.comments.length >= 40)!;
  const args = { media_id: busy, max_amount: 10 };
  const page = (cursor: string) => c.call('media_comments_chunk', { ...args, min_id: cursor }) as Promise<Page>;
  const before = await all(c, 'media_comments_chunk', args, 'min_id');
  let posted = '';
  const seen = await walk(page, {
    0: async () => {
      posted = ((await c.call('media_comment', { media_id: busy, text: 'between pages' })) as Item).pk!;
    },
    1: async (second) => {
      await c.call('comment_bulk_delete', { media_id: busy, comment_pks: [key(second[2])] });
    },
  });
  const after = await all(c, 'media_comments_chunk', args, 'min_id');
  t.equal(after[0], posted, 'the new comment leads the list now');
  t.notOk(seen.includes(posted), 'and sits before the cursor, so the walk does not show it');
  checkWalk(t, seen, before, after, 'comments');
});

t.test('posts: an upload after page 1, a post archived after page 2', async (t) => {
  const { c } = await fresh();
  const args = { user_id: DEMO, amount: 7 };
  const page = (cursor: string) => c.call('user_medias_paginated_v1', { ...args, end_cursor: cursor }) as Promise<Page>;
  const before = await all(c, 'user_medias_paginated_v1', args, 'end_cursor');
  const seen = await walk(page, {
    0: async () => {
      await c.call('photo_upload', { path: files.jpeg, caption: 'between pages' });
    },
    1: async (second) => {
      await c.call('media_archive', { media_id: key(second[1]) });
    },
  });
  const after = await all(c, 'user_medias_paginated_v1', args, 'end_cursor');
  t.equal(after.length, before.length, 'one in, one out');
  checkWalk(t, seen, before, after, 'posts');
});

t.test('direct inbox: a message to a thread further down moves it up without a repeat', async (t) => {
  const { c } = await fresh();
  const page = (cursor: string) => c.call('direct_threads_chunk', { cursor }) as Promise<Page>;
  const before = await all(c, 'direct_threads_chunk', {}, 'cursor');
  const moved = before[before.length - 1];
  const seen = await walk(page, {
    0: async () => {
      await c.call('direct_send', { text: 'bump', thread_ids: [moved] });
    },
  });
  const after = await all(c, 'direct_threads_chunk', {}, 'cursor');
  t.equal(after[0], moved, 'the thread messaged leads the inbox now');
  t.notOk(seen.includes(moved), 'it moved before the cursor, so this walk does not show it again');
  checkWalk(
    t,
    seen,
    before.filter((id) => id !== moved),
    after,
    'inbox',
  );
});

t.test('cursors are opaque and checked', async (t) => {
  const { c } = await fresh();
  const [, next] = (await c.call('user_followers_v1_chunk', { user_id: DEMO, max_amount: 10 })) as Page;
  t.notMatch(next, /^\d+$/, 'not a bare position');
  for (const bad of ['10', 'garbage', `${next}x`]) {
    await t.rejects(
      c.call('user_followers_v1_chunk', { user_id: DEMO, max_amount: 10, max_id: bad }),
      errorWith({ excType: 'WrongCursorError' }),
      `"${bad}" is refused`,
    );
  }
});

t.test('comment streams page both ways across a new comment', async (t) => {
  const { sandbox, c } = await fresh();
  const w = sandbox.world;
  const busy = w.users.get(DEMO)!.media.find((pk) => w.media.get(pk)!.comments.length >= 40)!;
  const [first, , max0] = (await c.call('media_stream_comments_v1_chunk', { media_id: busy })) as [Item[], string, string];
  await c.call('media_comment', { media_id: busy, text: 'new on top' });
  const [second, min1] = (await c.call('media_stream_comments_v1_chunk', { media_id: busy, max_id: max0 })) as [Item[], string, string];
  t.equal(second.filter((x) => first.some((y) => key(y) === key(x))).length, 0, 'max_id: older comments, none repeated');
  const [back] = (await c.call('media_stream_comments_v1_chunk', { media_id: busy, min_id: min1 })) as [Item[]];
  t.same(back.map(key), first.map(key), 'min_id: the page before, as it was');
});
