// Lost answers on request (SOCIALGATE_SANDBOX_LOST_ANSWER_RATE): a write is applied to the world
// and then its call fails as a dropped connection, the way a real platform's answer can be lost
// after it acted. Reads are never hit: a client's read-back must see the platform as it is.
import { fail } from './errors.js';
import type { Rng } from './prng.js';

/** The verbs of the upstream's write methods, as aiograpi names them (a method is a write when a word of its name is one). */
const WRITE_VERBS = [
  'like',
  'unlike',
  'follow',
  'unfollow',
  'block',
  'unblock',
  'save',
  'unsave',
  'comment',
  'delete',
  'upload',
  'send',
  'edit',
  'create',
  'add',
  'remove',
  'archive',
  'unarchive',
  'pin',
  'unpin',
  'mute',
  'unmute',
  'enable',
  'disable',
  'approve',
  'decline',
  'hide',
  'seen',
  'set',
  'change',
  'confirm',
  'convert',
  'report',
  'vote',
  'bookmark',
  'link',
  'update',
  'mark',
  'share',
  'answer',
  'start',
  'end',
  'unsend',
  'reaction',
  'relogin',
  'settings',
];
const WRITE_VERB = new RegExp(`(^|_)(${WRITE_VERBS.join('|')})(_|$)`);
/** Reads whose names carry such a word: pages, lookups and the share targets' configuration. */
const READ_FORM = /(^get_.*|_chunk|_destination|_config|_infos|_replies|_gql|_v1|_from_url|_info|_by_url|^archive_stories)$/;

export function writesTo(method: string): boolean {
  return WRITE_VERB.test(method) && !READ_FORM.test(method);
}

/** After a write ran: fail it as a lost answer at the configured rate. */
export function loseAnswer(method: string, rate: number, rng: Rng): void {
  if (rate > 0 && writesTo(method) && rng.next() < rate) {
    fail('ClientConnectionError', `ConnectionResetError: Connection reset by peer after ${method} was applied (sandbox lost answer)`);
  }
}
