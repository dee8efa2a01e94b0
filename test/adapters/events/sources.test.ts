// What a watcher's poll turns into events (adapters/events/sources.ts), as case tables: platform
// times in every unit it sends, and for each source which items become events, what they carry, and
// where the watermark moves. Pure functions over the shaped route results: no service runs here.
import t from 'tap';
import { messageEvents, notificationEvents, requestEvents, timeOf, type Account } from '../../../adapters/events/sources.js';

const ACCOUNT: Account = { pk: '100', username: 'demo' };
const REF = 'ref_of_the_session_0001';
const AT = Date.UTC(2026, 0, 2, 3, 4, 5); // epoch ms, a whole second
const S = AT / 1000;

t.test('timeOf reads every unit the platform sends', async (t) => {
  const cases: [string, unknown, number][] = [
    ['ISO date-time', '2026-01-02T03:04:05Z', AT],
    ['ISO with an offset', '2026-01-02T04:04:05+01:00', AT],
    ['seconds', S, AT],
    ['seconds as a digit string', String(S), AT],
    ['fractional seconds', S + 0.25, AT + 250],
    ['fractional seconds as a string', `${S}.5`, AT + 500],
    ['milliseconds', AT, AT],
    ['microseconds', AT * 1000 + 999, AT],
    ['1e11 is still seconds', 1e11, 1e14],
    ['just past 1e11 is milliseconds', 1e11 + 1, 1e11 + 1],
  ];
  for (const [name, input, expected] of cases) t.equal(timeOf(input), expected, name);
  const nothing: [string, unknown][] = [
    ['zero', 0],
    ['negative', -5],
    ['empty string', ''],
    ['null', null],
    ['undefined', undefined],
    ['text that is no date', 'yesterday-ish'],
    ['an object', { at: S }],
    ['infinity', Infinity],
  ];
  for (const [name, input] of nothing) t.ok(Number.isNaN(timeOf(input)), `${name} is no time`);
});

const thread = (id: string, messages: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  id,
  users: [
    { pk: '200', username: 'alice' },
    { pk: '300', username: 'bob' },
  ],
  messages,
  ...extra,
});
const message = (id: string, userId: string, at: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  user_id: userId,
  timestamp: at,
  item_type: 'text',
  text: `text ${id}`,
  ...extra,
});

t.test('messageEvents: incoming messages at or after the mark', async (t) => {
  const mark = AT;
  const cases: [string, unknown, string[], number][] = [
    ['no threads', [], [], mark],
    ['not a list', { threads: [] }, [], mark],
    ['older than the mark: nothing, the mark stays', [thread('t1', [message('m1', '200', S - 1)])], [], mark],
    ['exactly at the mark counts', [thread('t1', [message('m1', '200', S)])], ['m1'], mark],
    ['own message: no event, the mark still moves', [thread('t1', [message('m1', '100', S + 10)])], [], mark + 10_000],
    ['sent by the viewer: no event', [thread('t1', [message('m1', '200', S + 10, { is_sent_by_viewer: true })])], [], mark + 10_000],
    ['no sender: no event', [thread('t1', [message('m1', '', S + 10)])], [], mark + 10_000],
    ['an unreadable time is skipped', [thread('t1', [message('m1', '200', 'soon')])], [], mark],
    [
      'across threads, oldest first',
      [thread('t1', [message('m3', '200', S + 30), message('m1', '300', S + 10)]), thread('t2', [message('m2', '200', S + 20)])],
      ['m1', 'm2', 'm3'],
      mark + 30_000,
    ],
  ];
  for (const [name, threads, ids, newMark] of cases) {
    const found = messageEvents(threads, ACCOUNT, REF, mark);
    t.same(
      found.events.map((e) => (e.data as { item_id: string }).item_id),
      ids,
      name,
    );
    t.equal(found.mark, newMark, `${name}: the watermark`);
  }
});

t.test('messageEvents: what an event carries', async (t) => {
  const [event] = messageEvents([thread('t9', [message('m9', '300', S, { text: 'hi' })], { thread_title: 'Chat' })], ACCOUNT, REF, AT).events;
  t.match(event, { type: 'direct.message.created', session: REF, timestamp: AT });
  t.same(event.data, {
    account: ACCOUNT,
    thread_id: 't9',
    thread_title: 'Chat',
    item_id: 'm9',
    item_type: 'text',
    text: 'hi',
    sender: { pk: '300', username: 'bob' },
    sent_at: '2026-01-02T03:04:05.000Z',
  });
  const again = messageEvents([thread('t9', [message('m9', '300', S)])], ACCOUNT, 'another_ref', 0).events[0];
  t.equal(again.id, event.id, 'the same message is the same event id, whatever the poll');
  const other = messageEvents([thread('t9', [message('m10', '300', S)])], ACCOUNT, REF, 0).events[0];
  t.not(other.id, event.id, 'another message is another id');
  const stranger = messageEvents([thread('t9', [message('m9', '999', S)])], ACCOUNT, REF, 0).events[0];
  t.same((stranger.data as { sender: unknown }).sender, { pk: '999', username: null }, 'a sender not among the users has no username');
});

t.test('requestEvents: one event per pending thread at or after the mark', async (t) => {
  const pending = (id: string, at: unknown, messages: Record<string, unknown>[] = []) => thread(id, messages, { last_activity_at: at });
  const cases: [string, unknown, string[], number][] = [
    ['nothing pending', [], [], AT],
    ['older activity', [pending('p1', S - 1)], [], AT],
    ['activity at the mark', [pending('p1', S)], ['p1'], AT],
    ['oldest first, the mark at the newest', [pending('p2', S + 20), pending('p1', S + 5)], ['p1', 'p2'], AT + 20_000],
    ['activity in microseconds', [pending('p1', (S + 3) * 1_000_000)], ['p1'], AT + 3000],
  ];
  for (const [name, threads, ids, newMark] of cases) {
    const found = requestEvents(threads, ACCOUNT, REF, AT);
    t.same(
      found.events.map((e) => (e.data as { thread_id: string }).thread_id),
      ids,
      name,
    );
    t.equal(found.mark, newMark, `${name}: the watermark`);
  }
  const [event] = requestEvents(
    [
      {
        id: 'p7',
        last_activity_at: S,
        users: [
          { pk: '100', username: 'demo' },
          { pk: '200', username: 'alice' },
        ],
        messages: [message('new', '200', S, { text: 'second' }), message('old', '200', S - 60, { text: 'first' })],
      },
    ],
    ACCOUNT,
    REF,
    0,
  ).events;
  t.same(
    event.data,
    {
      account: ACCOUNT,
      thread_id: 'p7',
      from: [{ pk: '200', username: 'alice' }],
      text: 'first',
      item_type: 'text',
      received_at: '2026-01-02T03:04:05.000Z',
    },
    'the sender is everyone but the account; the text is the oldest message the thread carries',
  );
  t.equal(requestEvents([{ id: 'p8', last_activity_at: S }], ACCOUNT, REF, 0).events[0].data.text, null, 'a thread with no messages has no text');
});

t.test('notificationEvents: activity stories at or after the mark, by kind', async (t) => {
  const story = (extra: Record<string, unknown>, args: Record<string, unknown> = {}) => ({ ...extra, args: { timestamp: S, ...args } });
  const kinds: [string, Record<string, unknown>, string][] = [
    ['a like by notif_name', { notif_name: 'like' }, 'like'],
    ['a follow by notif_name', { notif_name: 'user_followed' }, 'follow'],
    ['a mention in a comment', { notif_name: 'comment_mention' }, 'mention'],
    ['a private follow request', { notif_name: 'private_user_follow_request' }, 'follow_request'],
    ['a comment by story_type', { story_type: 12 }, 'comment'],
    ['a tag by story_type', { story_type: 102 }, 'tag'],
    ['notif_name wins over story_type', { notif_name: 'like', story_type: 12 }, 'like'],
    ['an unknown kind', { notif_name: 'shopping', story_type: 999 }, 'other'],
  ];
  for (const [name, fields, kind] of kinds) {
    const [event] = notificationEvents({ new_stories: [story({ pk: name, ...fields })] }, ACCOUNT, REF, 0).events;
    t.equal((event.data as { kind: string }).kind, kind, name);
  }
  const found = notificationEvents(
    {
      new_stories: [story({ pk: 'n2', notif_name: 'like' }, { timestamp: S + 20 })],
      old_stories: [story({ pk: 'n1', notif_name: 'comment' }, { timestamp: S + 10 }), story({ pk: 'n0' }, { timestamp: S - 10 })],
    },
    ACCOUNT,
    REF,
    AT,
  );
  t.same(
    found.events.map((e) => (e.data as { notif_name: string }).notif_name),
    ['comment', 'like'],
    'new and old stories both count, oldest first; one before the mark does not',
  );
  t.equal(found.mark, AT + 20_000, 'the watermark moves to the newest story');
  for (const payload of [null, 'text', [], {}, { new_stories: 'no' }]) {
    t.same(notificationEvents(payload, ACCOUNT, REF, AT), { events: [], mark: AT }, `nothing from ${JSON.stringify(payload)}`);
  }
});

t.test('notificationEvents: what an event carries and how its id is made', async (t) => {
  const args = { timestamp: S, profile_id: 200, profile_name: 'alice', text: 'alice liked your post.', media: [{ id: 'm1' }, { id: 'm2' }] };
  const [event] = notificationEvents({ new_stories: [{ pk: 'story-1', notif_name: 'like', story_type: 60, args }] }, ACCOUNT, REF, 0).events;
  t.same(event.data, {
    account: ACCOUNT,
    kind: 'like',
    notif_name: 'like',
    story_type: 60,
    text: 'alice liked your post.',
    actor: { pk: '200', username: 'alice' },
    media_ids: ['m1', 'm2'],
    occurred_at: '2026-01-02T03:04:05.000Z',
  });
  const bare = notificationEvents({ new_stories: [{ story_type: 101, args: { timestamp: S } }] }, ACCOUNT, REF, 0).events[0];
  t.same(bare.data, {
    account: ACCOUNT,
    kind: 'follow',
    notif_name: null,
    story_type: 101,
    text: null,
    actor: null,
    media_ids: [],
    occurred_at: '2026-01-02T03:04:05.000Z',
  });
  const id = (story: Record<string, unknown>) => notificationEvents({ new_stories: [story] }, ACCOUNT, REF, 0).events[0].id;
  const ids: [string, Record<string, unknown>, Record<string, unknown>, boolean][] = [
    ['the same pk', { pk: 'a', args: { timestamp: S } }, { pk: 'a', args: { timestamp: S + 5 } }, true],
    ['another pk', { pk: 'a', args: { timestamp: S } }, { pk: 'b', args: { timestamp: S } }, false],
    ['the same tuuid without a pk', { args: { tuuid: 'u1', timestamp: S } }, { args: { tuuid: 'u1', timestamp: S } }, true],
    [
      'no ids: the same story read twice',
      { story_type: 60, args: { profile_id: 1, timestamp: S } },
      { story_type: 60, args: { profile_id: 1, timestamp: S } },
      true,
    ],
    ['no ids: another actor', { story_type: 60, args: { profile_id: 1, timestamp: S } }, { story_type: 60, args: { profile_id: 2, timestamp: S } }, false],
  ];
  for (const [name, a, b, same] of ids) t.equal(id(a) === id(b), same, `${name}: ${same ? 'one' : 'two'} event id(s)`);
});
