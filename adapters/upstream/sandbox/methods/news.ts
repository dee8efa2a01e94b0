// The activity inbox (news_inbox_v1) and the push-notification settings. aiograpi has no method
// that reads the settings back, so the sandbox's activity inbox honours them: a kind set 'off'
// is left out, 'following_only' keeps only accounts the viewer follows, and mute_all pauses new
// items until its time runs out. That is how a client sees a setting change took.
import { bool, str } from '../args.js';
import { fail } from '../errors.js';
import type { Ctx, MethodTable } from '../registry.js';
import type { UserRec } from '../world/types.js';
import { mediaList, visible } from './common.js';

/** The content types aiograpi's notification_disable turns off, in its order. */
export const CONTENT_TYPES = [
  'likes',
  'like_and_comment_on_photo_user_tagged',
  'user_tagged',
  'comments',
  'comment_likes',
  'first_post',
  'new_follower',
  'follow_request_accepted',
  'connection_notification',
  'tagged_in_bio',
  'pending_direct_share',
  'direct_share_activity',
  'direct_group_requests',
  'video_call',
  'rooms',
  'live_broadcast',
  'felix_upload_result',
  'view_count',
  'fundraiser_creator',
  'fundraiser_supporter',
  'notification_reminders',
  'announcements',
  'report_updated',
  'login_notification',
] as const;
const VALUES = ['off', 'following_only', 'everyone'];
const MUTE_SECONDS: Readonly<Record<string, number>> = { cancel: 0, '15_minutes': 900, '1_hour': 3600, '2_hour': 7200, '4_hour': 14400, '8_hour': 28800 };

function setNotification(ctx: Ctx, contentType: string, value: string): boolean {
  const me = ctx.me();
  if (contentType === 'mute_all') {
    if (!(value in MUTE_SECONDS))
      fail('UnsupportedSettingValue', `Unsupported setting_value "${value}" for "mute_all"; allowed: ${Object.keys(MUTE_SECONDS).join(', ')}`);
    me.notificationsMutedUntil = value === 'cancel' ? 0 : ctx.nowSec() + MUTE_SECONDS[value];
    return true;
  }
  if (!(CONTENT_TYPES as readonly string[]).includes(contentType))
    fail('UnsupportedError', `Unsupported content_type "${contentType}"; supported: ${CONTENT_TYPES.join(', ')}, mute_all`);
  if (!VALUES.includes(value)) fail('UnsupportedSettingValue', `Unsupported setting_value "${value}" for "${contentType}"; allowed: ${VALUES.join(', ')}`);
  me.notificationSettings.set(contentType, value);
  return true;
}

interface Story {
  kind: (typeof CONTENT_TYPES)[number];
  actor: string;
  at: number;
  body: Record<string, unknown>;
  pk?: string;
}

function likeStories(ctx: Ctx, me: UserRec): Story[] {
  return visible(ctx, me.media)
    .slice(0, 10)
    .flatMap((pk) => {
      const m = ctx.world.media.get(pk)!;
      const liker = [...m.likers].find((u) => u !== me.pk);
      if (!liker) return [];
      const image = mediaList(ctx, [m.pk])[0]?.thumbnail_url;
      return [
        {
          kind: 'likes',
          actor: liker,
          at: m.takenAt + 600,
          body: { story_type: 60, type: 1, notif_name: 'like', text: 'liked your post.', media: [{ id: `${m.pk}_${m.owner}`, image }] },
        },
      ];
    });
}

function commentStories(ctx: Ctx, me: UserRec): Story[] {
  const live = new Set((ctx.world.activity.get(me.pk) ?? []).map((story) => story.comment));
  return visible(ctx, me.media)
    .slice(0, 10)
    .flatMap((pk) => {
      const m = ctx.world.media.get(pk)!;
      const last = [...m.comments]
        .reverse()
        .map((c) => ctx.world.comments.get(c))
        .find((c) => c && c.user !== me.pk && !live.has(c.pk));
      if (!last) return [];
      return [
        {
          kind: 'comments',
          actor: last.user,
          at: last.createdAt,
          body: { story_type: 12, type: 1, notif_name: 'comment', text: `commented: ${last.text}`, media: [{ id: `${m.pk}_${m.owner}` }] },
        },
      ];
    });
}

function followStories(ctx: Ctx, me: UserRec): Story[] {
  return [...me.followers].slice(-5).map((pk, i) => ({
    kind: 'new_follower',
    actor: pk,
    at: ctx.world.epoch - 3600 * (5 - i),
    body: { story_type: 101, type: 3, notif_name: 'user_followed', text: 'started following you.' },
  }));
}

function tagStories(ctx: Ctx, me: UserRec): Story[] {
  return visible(ctx, me.tagged)
    .slice(0, 3)
    .map((pk) => {
      const m = ctx.world.media.get(pk)!;
      return {
        kind: 'user_tagged',
        actor: m.owner,
        at: m.takenAt + 60,
        body: { story_type: 102, type: 1, notif_name: 'usertag', text: 'tagged you in a post.', media: [{ id: `${m.pk}_${m.owner}` }] },
      };
    });
}

/** What happened at run time (the live sandbox, POST /sandbox/activity), newest last. */
function liveStories(ctx: Ctx, me: UserRec): Story[] {
  return (ctx.world.activity.get(me.pk) ?? []).map((live) => {
    const media = live.media ? [{ id: `${live.media}_${me.pk}`, image: mediaList(ctx, [live.media])[0]?.thumbnail_url }] : undefined;
    if (live.kind === 'likes')
      return {
        pk: live.pk,
        kind: 'likes',
        actor: live.actor,
        at: live.at,
        body: { story_type: 60, type: 1, notif_name: 'like', text: 'liked your post.', media },
      };
    if (live.kind === 'comments')
      return {
        pk: live.pk,
        kind: 'comments',
        actor: live.actor,
        at: live.at,
        body: { story_type: 12, type: 1, notif_name: 'comment', text: `commented: ${live.text}`, media },
      };
    return {
      pk: live.pk,
      kind: 'new_follower',
      actor: live.actor,
      at: live.at,
      body: { story_type: 101, type: 3, notif_name: 'user_followed', text: 'started following you.' },
    };
  });
}

/** What the settings let through: nothing of a kind set 'off', only followed accounts for 'following_only'. */
function allowed(me: UserRec, story: Story): boolean {
  const setting = me.notificationSettings.get(story.kind) ?? 'everyone';
  return setting === 'everyone' || (setting === 'following_only' && me.following.has(story.actor));
}

function render(ctx: Ctx, story: Story): Record<string, unknown> {
  const { text, media, ...rest } = story.body;
  const actor = ctx.world.users.get(story.actor);
  return {
    ...(story.pk ? { pk: story.pk } : {}),
    ...rest,
    args: { text: `${actor?.username ?? story.actor} ${String(text)}`, profile_id: story.actor, profile_name: actor?.username, media, timestamp: story.at },
  };
}

function newsInbox(ctx: Ctx, markAsSeen: boolean): Record<string, unknown> {
  const me = ctx.me();
  const stories = [...liveStories(ctx, me), ...likeStories(ctx, me), ...commentStories(ctx, me), ...followStories(ctx, me), ...tagStories(ctx, me)]
    .filter((s) => ctx.world.users.has(s.actor) && allowed(me, s))
    .sort((a, b) => b.at - a.at);
  const paused = me.notificationsMutedUntil > ctx.nowSec();
  const fresh = markAsSeen || paused ? [] : stories.slice(0, 3);
  const count = (kind: Story['kind']) => fresh.filter((s) => s.kind === kind).length;
  return {
    new_stories: fresh.map((s) => render(ctx, s)),
    old_stories: stories.slice(fresh.length).map((s) => render(ctx, s)),
    counts: { likes: count('likes'), comments: count('comments'), relationships: count('new_follower'), usertags: count('user_tagged') },
    is_last_page: true,
    status: 'ok',
  };
}

export const newsMethods: MethodTable = {
  news_inbox_v1: { run: (ctx, a) => newsInbox(ctx, bool(a.mark_as_seen)) },
  notification_settings: { run: (ctx, a) => setNotification(ctx, str(a.content_type, 'content_type'), str(a.setting_value, 'setting_value')) },
  notification_mute_all: { run: (ctx, a) => setNotification(ctx, 'mute_all', str(a.setting_value, 'setting_value')) },
  notification_disable: {
    run(ctx) {
      for (const type of CONTENT_TYPES) ctx.me().notificationSettings.set(type, 'off');
      return true;
    },
  },
};
