// What a watcher's poll turns into events: pure functions from the shaped route results (the same
// JSON the HTTP routes answer, on every upstream) and the session's watermarks to the new events
// and the advanced watermarks. Ids come from the platform's own ids, so a poll that sees an item
// twice (a restart, a second instance, a reconnect) emits the same event id, which the log keeps once.
import type { EventTypeRow, WorkEvent } from '../../engine/types.js';
import { eventId } from './ids.js';

/** Event types a watcher produces, each from one route. */
export const WATCH_KINDS = ['direct.message.created', 'direct.request.created', 'notification.created'] as const;
export type WatchKind = (typeof WATCH_KINDS)[number];

/** What each watch event means (GET /events/types; the events module declares these rows). */
const WATCH_MEANS: Readonly<Record<WatchKind, string>> = {
  'direct.message.created': 'A message arrived in an inbox thread (not one the account sent): thread, item, sender and text.',
  'direct.request.created': 'A new message request (a pending thread) arrived: thread, who from, first message.',
  'notification.created': "A new item in the activity inbox: a like, comment, follow, mention, tag or follow request, with the platform's kind.",
};
export const WATCH_EVENT_TYPES: readonly EventTypeRow[] = WATCH_KINDS.map((type) => ({ type, describe: WATCH_MEANS[type] }));

/** Newest platform time (epoch ms) seen per source: what came at or before it is not new. */
export type Marks = Partial<Record<WatchKind, number>>;

export interface Account {
  readonly pk: string;
  readonly username: string;
}

export interface Found {
  readonly events: WorkEvent[];
  readonly mark: number;
}

type Rec = Record<string, unknown>;
const records = (value: unknown): Rec[] => (Array.isArray(value) ? value.filter((v): v is Rec => typeof v === 'object' && v !== null) : []);

/** Epoch ms from what the platform sends: an ISO date-time, or seconds, milliseconds or microseconds. */
export function timeOf(value: unknown): number {
  if (typeof value === 'string' && value !== '' && !/^\d+(\.\d+)?$/.test(value)) return Date.parse(value);
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return NaN;
  if (n > 1e14) return Math.floor(n / 1000);
  if (n > 1e11) return Math.floor(n);
  return Math.floor(n * 1000);
}

/** Incoming messages (not the account's own) at or after the mark, in any inbox thread. */
export function messageEvents(threads: unknown, account: Account, ref: string, mark: number): Found {
  const events: WorkEvent[] = [];
  let newest = mark;
  for (const thread of records(threads)) {
    const users = new Map(records(thread.users).map((u) => [String(u.pk), String(u.username ?? '')]));
    for (const message of records(thread.messages)) {
      const at = timeOf(message.timestamp);
      if (!(at >= mark)) continue;
      newest = Math.max(newest, at);
      const sender = String(message.user_id ?? '');
      if (!sender || sender === account.pk || message.is_sent_by_viewer === true) continue;
      events.push({
        id: eventId('direct.message.created', account.pk, String(thread.id), String(message.id)),
        type: 'direct.message.created',
        session: ref,
        timestamp: at,
        data: {
          account,
          thread_id: String(thread.id),
          thread_title: thread.thread_title ?? null,
          item_id: String(message.id),
          item_type: message.item_type ?? null,
          text: message.text ?? null,
          sender: { pk: sender, username: users.get(sender) ?? null },
          sent_at: new Date(at).toISOString(),
        },
      });
    }
  }
  return { events: events.sort((a, b) => a.timestamp - b.timestamp), mark: newest };
}

/** Pending threads (message requests) whose activity is at or after the mark, once per thread. */
export function requestEvents(threads: unknown, account: Account, ref: string, mark: number): Found {
  const events: WorkEvent[] = [];
  let newest = mark;
  for (const thread of records(threads)) {
    const at = timeOf(thread.last_activity_at);
    if (!(at >= mark)) continue;
    newest = Math.max(newest, at);
    const from = records(thread.users)
      .filter((u) => String(u.pk) !== account.pk)
      .map((u) => ({ pk: String(u.pk), username: String(u.username ?? '') }));
    const first = firstMessage(thread);
    events.push({
      id: eventId('direct.request.created', account.pk, String(thread.id)),
      type: 'direct.request.created',
      session: ref,
      timestamp: at,
      data: {
        account,
        thread_id: String(thread.id),
        from,
        text: first?.text ?? null,
        item_type: first?.item_type ?? null,
        received_at: new Date(at).toISOString(),
      },
    });
  }
  return { events: events.sort((a, b) => a.timestamp - b.timestamp), mark: newest };
}

/** The request's first message: the oldest the thread carries (the platform lists the newest first). */
function firstMessage(thread: Rec): Rec | undefined {
  let first: Rec | undefined;
  for (const message of records(thread.messages)) if (!first || !(timeOf(message.timestamp) > timeOf(first.timestamp))) first = message;
  return first;
}

/** Kinds of the activity inbox by the platform's notif_name or story_type. */
const NOTIFICATION_KINDS: Readonly<Record<string, string>> = {
  like: 'like',
  comment: 'comment',
  user_followed: 'follow',
  usertag: 'tag',
  mention: 'mention',
  comment_mention: 'mention',
  follow_request: 'follow_request',
  private_user_follow_request: 'follow_request',
  comment_like: 'comment_like',
  '60': 'like',
  '12': 'comment',
  '101': 'follow',
  '102': 'tag',
  '66': 'mention',
  '13': 'comment_like',
};

/** Activity inbox stories (likes, comments, follows, mentions, tags, follow requests) at or after the mark. */
export function notificationEvents(payload: unknown, account: Account, ref: string, mark: number): Found {
  const body = (typeof payload === 'object' && payload !== null ? payload : {}) as Rec;
  const events: WorkEvent[] = [];
  let newest = mark;
  for (const story of [...records(body.new_stories), ...records(body.old_stories)]) {
    const args = (typeof story.args === 'object' && story.args !== null ? story.args : {}) as Rec;
    const at = timeOf(args.timestamp);
    if (!(at >= mark)) continue;
    newest = Math.max(newest, at);
    const media = records(args.media).map((m) => String(m.id ?? ''));
    const name = String(story.notif_name ?? args.notif_name ?? '');
    const platformId = story.pk ?? args.tuuid ?? [story.story_type, args.profile_id, args.timestamp, media.join(',')].join('/');
    events.push({
      id: eventId('notification.created', account.pk, String(platformId)),
      type: 'notification.created',
      session: ref,
      timestamp: at,
      data: {
        account,
        kind: NOTIFICATION_KINDS[name] ?? NOTIFICATION_KINDS[String(story.story_type)] ?? 'other',
        notif_name: name || null,
        story_type: story.story_type ?? null,
        text: args.text ?? null,
        actor: args.profile_id !== undefined ? { pk: String(args.profile_id), username: args.profile_name ?? null } : null,
        media_ids: media,
        occurred_at: new Date(at).toISOString(),
      },
    });
  }
  return { events: events.sort((a, b) => a.timestamp - b.timestamp), mark: newest };
}

export const FINDERS: Readonly<Record<WatchKind, (result: unknown, account: Account, ref: string, mark: number) => Found>> = {
  'direct.message.created': messageEvents,
  'direct.request.created': requestEvents,
  'notification.created': notificationEvents,
};
