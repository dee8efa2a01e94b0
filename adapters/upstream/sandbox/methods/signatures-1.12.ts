// What aiograpi 1.12 changed in the signatures the sandbox implements, read from the 1.12.13
// release's source: the user-facing methods it added, and the keywords it added to older methods.
// A sandbox playing 1.0.9 (the default) has neither; one playing 1.12.13 has both. Runs of parameters
// 1.0.9's signatures already have come from signature-rows.ts, so each is written once.
import { type ParamDecl, STORY_STICKERS } from './signature-rows.js';

/** The version that brought the changes below. */
export const SINCE_1_12 = '1.12';

const STORY_EXTRAS: readonly ParamDecl[] = [['thumbnail', null], ...STORY_STICKERS];
const STORY_MUSIC: readonly ParamDecl[] = [
  ['audio_asset_start_time', null],
  ['overlap_duration', null],
  ['original_volume', 0.0],
  ['music_volume', 1.0],
  ['product', 'story_camera_music_overlay_post_capture'],
  ['alacorn_session_id', 'null'],
];
const CONVERT: readonly ParamDecl[] = [
  ['category_id', '2347428775505624'],
  ['should_show_category', true],
  ['should_show_public_contacts', false],
];

/** Methods 1.12 added, with their signatures. */
export const ADDED_1_12: Readonly<Record<string, readonly ParamDecl[]>> = {
  account_convert_to_business: CONVERT,
  account_convert_to_creator: CONVERT,
  account_convert_to_professional: [
    ['to_account_type', 3],
    ...CONVERT,
    ['entry_point', 'setting'],
    ['creator_destination_migration', false],
    ['extra_data', null],
  ],
  hashtag_following: [['amount', 0]],
  media_link_reel: ['media_id', 'target_media_id', ['link_name', 'Watch Next']],
  media_search: ['query', ['amount', 27]],
  media_share_to_fb_destination: [
    ['config', null],
    ['destination_id', null],
    ['destination_type', null],
    ['validation_bypass', null],
    ['use_unified_config', true],
  ],
  media_share_to_threads_destination: [
    ['config', null],
    ['destination_id', null],
  ],
  music_bookmarked: [['max_id', '']],
  photo_upload_to_story_with_music: ['path', 'caption', 'track', ...STORY_EXTRAS, ['duration', 15.0], ...STORY_MUSIC],
  story_likers: ['story_pk', ['amount', 0]],
  story_likers_chunk: ['story_pk', ['max_amount', 0], ['max_id', '']],
  story_poll_vote: ['story_id', 'poll_id', 'vote'],
  user_report: ['user_id', ['reason', 'spam']],
  video_upload_to_story_with_music: ['path', 'caption', 'track', ...STORY_EXTRAS, ...STORY_MUSIC],
  // The async iterators (methods/iterators.ts): they take what their chunk method takes but the cursor.
  iter_user_followers_v1: ['user_id', ['max_amount', 0]],
  iter_user_medias: ['user_id', ['amount', 0]],
  iter_hashtag_medias: ['name', ['amount', 0], ['tab_key', '']],
};

const POST_EXTRAS: readonly ParamDecl[] = [
  ['schedule_at', null],
  ['coauthor_user_ids', null],
  ['share_to_facebook', false],
  ['share_to_threads', false],
  ['fb_destination_id', null],
  ['fb_destination_type', null],
  ['fb_validation_bypass', null],
  ['threads_destination_id', null],
  ['threads_validation_bypass', null],
];

/** Keywords 1.12 added to methods 1.0.9 already had (scheduling, co-authors, cross-posting). */
export const EXTENDED_1_12: Readonly<Record<string, readonly ParamDecl[]>> = {
  photo_upload: POST_EXTRAS,
  video_upload: POST_EXTRAS,
  album_upload: POST_EXTRAS,
};
