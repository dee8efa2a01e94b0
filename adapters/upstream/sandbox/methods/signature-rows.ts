// Runs of parameters that several of the upstream's signatures share, each written once: the
// 1.0.9 table and the 1.12 changes both build from them.
export type ParamDecl = string | readonly [string, unknown];

/** The story composer's overlays, after the media (photo and video stories, and 1.12's stories with music). */
export const STORY_STICKERS: readonly ParamDecl[] = [
  ['mentions', []],
  ['locations', []],
  ['links', []],
  ['hashtags', []],
  ['stickers', []],
  ['medias', []],
  ['polls', []],
  ['extra_data', {}],
];

/** An album's configure step (with and without music). */
export const ALBUM_CONFIGURE: readonly ParamDecl[] = [
  ['usertags', []],
  ['location', null],
  ['configure_timeout', 3],
  ['configure_handler', null],
  ['configure_exception', null],
  ['to_story', false],
  ['extra_data', {}],
];

/** A feed post's music track (photo and album with music). */
export const FEED_MUSIC: readonly ParamDecl[] = [
  ['audio_asset_start_time', null],
  ['overlap_duration', 30000],
  ['browse_session_id', null],
  ['alacorn_session_id', null],
];
