// Sending into direct threads: text, shares, stickers and files (photo, video, voice, any file).
import { ids, str } from '../args.js';
import { fail } from '../errors.js';
import { findMedia, findStory, findThread, findUser } from '../lookup.js';
import { message } from '../records-direct.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { addMessage } from '../world/social.js';
import type { MessageType, ThreadRec } from '../world/types.js';
import { uploadFile } from './common.js';
import { threadWith } from './direct.js';

interface Body {
  type: MessageType;
  text: string;
  ref: string | null;
  video?: boolean;
}

/** One message per target thread; the upstream returns the first. Recipients see it as unread. */
function send(ctx: Ctx, userIds: unknown, threadIds: unknown, body: Body): Record<string, unknown> {
  const users = ids(userIds);
  const threads: ThreadRec[] = ids(threadIds).map((t) => findThread(ctx, t));
  if (users.length) threads.unshift(threadWith(ctx, users));
  if (!threads.length) fail('ClientBadRequestError', 'Pass user_ids or thread_ids');
  const me = ctx.me().pk;
  const sent = threads.map((t) => {
    const m = addMessage(ctx.world, t, { user: me, ts: ctx.nowSec(), ...body });
    for (const [pk, state] of t.state) if (pk !== me) state.unread = true;
    if (t.state.get(me)!.folder === 'hidden') t.state.get(me)!.folder = 'inbox';
    return m;
  });
  return message(ctx.world, sent[0], me);
}

function fileSender(excType: string, type: MessageType, video: boolean): MethodDef {
  return {
    run(ctx, a) {
      uploadFile(a.path, excType);
      return send(ctx, a.user_ids, a.thread_ids, { type, text: '', ref: null, video });
    },
  };
}

export const directSendMethods: MethodTable = {
  direct_send: {
    run(ctx, a) {
      const text = str(a.text, 'text');
      return send(ctx, a.user_ids, a.thread_ids, { type: /^https?:\/\//.test(text.trim()) ? 'link' : 'text', text, ref: null });
    },
  },
  direct_answer: { run: (ctx, a) => send(ctx, [], [a.thread_id], { type: 'text', text: str(a.text, 'text'), ref: null }) },
  direct_media_share: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_id);
      return send(ctx, a.user_ids, [], { type: m.kind === 'clip' ? 'clip' : 'media_share', text: '', ref: m.pk });
    },
  },
  direct_story_share: { run: (ctx, a) => send(ctx, a.user_ids, a.thread_ids, { type: 'story_share', text: '', ref: findStory(ctx, a.story_id).pk }) },
  direct_profile_share: { run: (ctx, a) => send(ctx, a.user_ids, a.thread_ids, { type: 'profile', text: '', ref: findUser(ctx, a.user_id).pk }) },
  direct_send_cutout_sticker: {
    run: (ctx, a) => send(ctx, a.user_ids, a.thread_ids, { type: 'media', text: '', ref: `sticker${str(a.sticker_pk, 'sticker_pk')}` }),
  },
  direct_send_photo: fileSender('PhotoNotUpload', 'media', false),
  direct_send_video: fileSender('VideoNotUpload', 'media', true),
  direct_send_voice: fileSender('VideoNotUpload', 'voice_media', false),
  direct_send_file: {
    run(ctx, a) {
      const video = str(a.content_type) === 'video';
      uploadFile(a.path, video ? 'VideoNotUpload' : 'PhotoNotUpload');
      return send(ctx, a.user_ids, a.thread_ids, { type: 'media', text: '', ref: null, video });
    },
  },
  video_upload_to_direct: {
    run(ctx, a) {
      uploadFile(a.path, 'VideoNotUpload');
      const m = send(ctx, [], a.thread_ids, { type: 'media', text: str(a.caption), ref: null, video: true });
      return m;
    },
  },
};
