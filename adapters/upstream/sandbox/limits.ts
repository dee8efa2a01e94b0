// The platform's hidden limits per action class, as the sandbox plays them: each account may do so
// many likes (follows, comments, ...) within an hour; the next one is blocked with FeedbackRequired
// ("Try Again Later"), and so is every call of that class until the block ends. Other classes go on.
// The limits are nobody's to read: they are drawn from the seed and the account within each class's
// range (README, "The sandbox's limits"), so a run is repeatable and accounts differ as they do on
// the platform.
import { hash32 } from './prng.js';
import { upstreamError } from './errors.js';

/** The classes the platform counts, with the range an account's hourly limit is drawn from (inclusive). */
export const LIMIT_RANGES = {
  like: [150, 250],
  follow: [60, 100],
  comment: [30, 50],
  direct: [40, 70],
  post: [30, 50],
} as const satisfies Readonly<Record<string, readonly [number, number]>>;

export type LimitedClass = keyof typeof LIMIT_RANGES;

/** Counted platform methods by class (the manifest's action classes of the routes that call them; test/adapters/upstream/sandbox/limits.test.ts checks). */
const METHODS: Readonly<Record<LimitedClass, readonly string[]>> = {
  like: ['media_like', 'media_unlike', 'comment_like', 'comment_unlike', 'story_like', 'story_unlike'],
  follow: [
    'user_follow',
    'user_unfollow',
    'user_remove_follower',
    'user_block',
    'user_unblock',
    'close_friend_add',
    'close_friend_remove',
    'hashtag_follow',
    'hashtag_unfollow',
  ],
  comment: ['media_comment', 'comment_bulk_delete', 'comment_pin', 'comment_unpin'],
  direct: [
    'direct_send',
    'direct_answer',
    'direct_send_photo',
    'direct_send_video',
    'direct_send_voice',
    'direct_send_file',
    'direct_media_share',
    'direct_profile_share',
    'direct_story_share',
    'direct_thread_create',
    'video_upload_to_direct',
  ],
  post: [
    'photo_upload',
    'photo_upload_to_story',
    'photo_upload_with_music',
    'photo_upload_to_story_with_music',
    'video_upload',
    'video_upload_to_story',
    'video_upload_to_story_with_music',
    'album_upload',
    'album_upload_with_music',
    'clip_upload',
    'clip_upload_with_music',
    'igtv_upload',
  ],
};

const CLASS_OF: ReadonlyMap<string, LimitedClass> = new Map(
  Object.entries(METHODS).flatMap(([cls, methods]) => methods.map((method) => [method, cls as LimitedClass] as const)),
);

/** The class a platform method counts against; undefined for the uncounted (reads, settings). */
export function limitedClassOf(method: string): LimitedClass | undefined {
  return CLASS_OF.get(method);
}

/** The window the platform counts in. */
export const LIMIT_WINDOW_MS = 3_600_000;

export interface LimitOptions {
  readonly seed: number;
  /** Multiplies every limit (0.1: a tenth; 0: no limits at all). */
  readonly scale: number;
  /** How long a block lasts, in seconds: the hint its FeedbackRequired carries. */
  readonly blockSeconds: number;
  readonly now: () => number;
}

interface Tally {
  start: number;
  count: number;
  blockedUntil: number;
}

/** One account's hidden hourly limit for a class: the same for a seed and account, whoever asks. */
export function hiddenLimit(seed: number, account: string, cls: LimitedClass, scale = 1): number {
  const [low, high] = LIMIT_RANGES[cls];
  const drawn = low + (hash32(`${seed}:limit:${account}:${cls}`) % (high - low + 1));
  return Math.max(1, Math.round(drawn * scale));
}

/** The limits of one sandbox (shared by its clients, as the platform's are by an account's devices). */
export class ActionLimits {
  private readonly tallies = new Map<string, Tally>();

  constructor(private readonly options: LimitOptions) {}

  /** Counts one call of `method` for `account`; throws FeedbackRequired while the class is blocked or once its limit is passed. */
  count(account: string, method: string): void {
    if (this.options.scale <= 0) return;
    const cls = limitedClassOf(method);
    if (!cls) return;
    const now = this.options.now();
    const tally = this.tallyOf(`${account}:${cls}`, now);
    if (tally.blockedUntil > now) throw blocked(cls, tally.blockedUntil - now);
    if (++tally.count <= hiddenLimit(this.options.seed, account, cls, this.options.scale)) return;
    tally.blockedUntil = now + this.options.blockSeconds * 1000;
    throw blocked(cls, this.options.blockSeconds * 1000);
  }

  /** The account's tally for a class, begun again once its window has passed or its block has ended. */
  private tallyOf(key: string, now: number): Tally {
    const found = this.tallies.get(key);
    const ended = found && (found.blockedUntil ? found.blockedUntil <= now : now - found.start >= LIMIT_WINDOW_MS);
    if (found && !ended) return found;
    const fresh = { start: now, count: 0, blockedUntil: 0 };
    this.tallies.set(key, fresh);
    return fresh;
  }
}

/** The platform's action block, with its wait as the hint (a real block's length is the platform's secret). */
function blocked(cls: LimitedClass, leftMs: number) {
  const seconds = Math.max(1, Math.ceil(leftMs / 1000));
  const message = 'feedback_required: Try Again Later. We limit how often you can do certain things on Instagram to protect our community.';
  const lastJson = { message: 'feedback_required', feedback_title: 'Try Again Later', spam: true, status: 'fail', sandbox_class: cls };
  return upstreamError('FeedbackRequired', message, lastJson, seconds);
}
