// The logged-in account: profile edits, privacy, password and contact flows, its archive and
// insights.
import { ids, int, str } from '../args.js';
import { fail } from '../errors.js';
import { findMedia } from '../lookup.js';
import { pageBy } from '../paging.js';
import { account, commentCount, userShort } from '../records.js';
import type { Ctx, MethodTable } from '../registry.js';
import { mediaList, newestFirst, andReturn, uploadFile, visible } from './common.js';

const EDITABLE = {
  first_name: 'fullName',
  full_name: 'fullName',
  biography: 'biography',
  external_url: 'externalUrl',
  email: 'email',
  phone_number: 'phone',
  username: 'username',
  gender: 'gender',
} as const;

function edit(ctx: Ctx, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const me = ctx.me();
  for (const [key, value] of Object.entries(fields)) {
    const target = EDITABLE[key as keyof typeof EDITABLE];
    if (!target) fail('TypeError', `account_edit() got an unexpected keyword argument '${key}'`);
    if (target === 'username') {
      const name = str(value).trim().toLowerCase();
      if (!/^[a-z0-9._]{1,30}$/.test(name)) fail('ClientBadRequestError', `Invalid username "${name}"`);
      const taken = ctx.world.byUsername.get(name);
      if (taken && taken !== me.pk) fail('ClientBadRequestError', `This username isn't available: ${name}`);
      ctx.world.byUsername.delete(me.username);
      ctx.world.byUsername.set(name, me.pk);
      me.username = name;
    } else if (target === 'email') {
      if (!/^[^@\s]+@[^@\s]+$/.test(str(value))) fail('EmailInvalidError', 'Enter a valid email address.');
      me.email = str(value);
    } else if (target === 'gender') me.gender = int(value);
    else if (target === 'externalUrl') me.externalUrl = str(value) || null;
    else me[target] = str(value);
  }
  return account(me);
}

export const accountMethods: MethodTable = {
  account_info: { run: (ctx) => account(ctx.me()) },
  account_edit: { run: (ctx, a) => edit(ctx, a) },
  account_set_biography: { run: (ctx, a) => andReturn(edit(ctx, { biography: str(a.biography, 'biography') }), true) },
  set_external_url: {
    run: (ctx, a) => ({ user: { ...account(ctx.me()), ...edit(ctx, { external_url: str(a.external_url, 'external_url') }) }, status: 'ok' }),
  },
  account_set_private: { run: (ctx) => andReturn((ctx.me().isPrivate = true), true) },
  account_set_public: {
    run(ctx) {
      const me = ctx.me();
      me.isPrivate = false;
      return true;
    },
  },
  account_change_picture: {
    run(ctx, a) {
      uploadFile(a.path, 'PhotoNotUpload', 'picture');
      ctx.me().picVersion += 1;
      return userShort(ctx.me());
    },
  },
  account_security_info: {
    run: (ctx) => ({
      is_phone_confirmed: Boolean(ctx.me().phone),
      is_two_factor_enabled: ctx.me().totpEnabled,
      is_totp_two_factor_enabled: ctx.me().totpEnabled,
      is_trusted_notifications_enabled: false,
      backup_codes: [],
      status: 'ok',
    }),
  },
  remove_bio_links: {
    run(ctx, a) {
      const gone = new Set(ids(a.link_ids));
      ctx.me().bioLinks = ctx.me().bioLinks.filter((l) => !gone.has(l.link_id));
      return { user: account(ctx.me()), status: 'ok' };
    },
  },
  change_password: {
    run(ctx, a) {
      const me = ctx.me();
      if (!me.password || str(a.old_password) !== me.password) fail('BadPassword', 'The password you entered is incorrect. Please try again.');
      if (str(a.new_password).length < 6) fail('ClientBadRequestError', 'Create a password at least 6 characters long.');
      me.password = str(a.new_password);
      return true;
    },
  },
  send_password_reset: {
    open: true,
    run: (_ctx, a) => ({
      title: 'Email sent',
      body: `We sent an email to ${maskEmail(str(a.identifier, 'identifier'))} with a link to get back into your account.`,
      status: 'ok',
    }),
  },
  send_confirm_email: { run: (_ctx, a) => ({ is_valid: /^[^@\s]+@[^@\s]+$/.test(str(a.email, 'email')), title: 'Check your email', status: 'ok' }) },
  confirm_email: {
    run(ctx, a) {
      if (str(a.code, 'code') !== '123456') fail('ClientBadRequestError', "That code isn't valid. The sandbox accepts 123456.");
      ctx.me().email = str(a.email, 'email');
      return { status: 'ok' };
    },
  },
  send_confirm_phone_number: { run: (_ctx, a) => ({ phone_number: str(a.phone_number, 'phone_number'), verification_code_sent: true, status: 'ok' }) },
  get_account_family_v1: { run: (ctx) => ({ current_account: userShort(ctx.me()), child_accounts: [], main_accounts: [], status: 'ok' }) },
  archive_medias_paginated_v1: {
    run(ctx, a) {
      const me = ctx.me();
      const archived = me.media.filter((pk) => ctx.world.media.get(pk)?.archived);
      const [items, next] = pageBy(archived, newestFirst(ctx), a.end_cursor, int(a.amount) || 33);
      return [mediaList(ctx, items), next];
    },
  },
  insights_account: {
    run(ctx) {
      const me = ctx.me();
      const posts = visible(ctx, me.media);
      const likes = posts.reduce((sum, pk) => sum + (ctx.world.media.get(pk)?.likers.size ?? 0), 0);
      return {
        data: {
          user: {
            business_manager: {
              account_summary_unit: {
                posts_count: posts.length,
                followers_count: me.followers.size,
                accounts_reached: likes * 7,
                impressions: likes * 19,
                profile_visits: likes * 2,
              },
            },
          },
        },
        status: 'ok',
      };
    },
  },
  insights_media: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_pk);
      if (m.owner !== ctx.me().pk) fail('ClientForbiddenError', 'Insights are available for your own media only');
      return {
        media_id: `${m.pk}_${m.owner}`,
        like_count: m.likers.size,
        comment_count: commentCount(ctx.world, m),
        save_count: Math.floor(m.likers.size / 4),
        reach_count: m.likers.size * 7,
        impression_count: m.likers.size * 11,
        share_count: Math.floor(m.likers.size / 6),
      };
    },
  },
  insights_media_feed_all: {
    run(ctx, a) {
      const me = ctx.me();
      const type = str(a.post_type).toUpperCase();
      const pks = visible(ctx, me.media).filter(
        (pk) =>
          type === 'ALL' ||
          (type === 'PHOTO' && ctx.world.media.get(pk)!.kind === 'photo') ||
          (type === 'VIDEO' && ctx.world.media.get(pk)!.kind !== 'photo') ||
          (type === 'CAROUSEL_V2' && ctx.world.media.get(pk)!.kind === 'album'),
      );
      const count = int(a.count);
      return (count > 0 ? pks.slice(0, count) : pks).map((pk) => {
        const m = ctx.world.media.get(pk)!;
        return {
          node: {
            id: m.pk,
            instagram_media_id: `${m.pk}_${m.owner}`,
            inline_insights_node: {
              metrics: {
                reach_count: m.likers.size * 7,
                impression_count: m.likers.size * 11,
                like_count: m.likers.size,
                comment_count: commentCount(ctx.world, m),
              },
            },
          },
        };
      });
    },
  },
};

function maskEmail(identifier: string): string {
  const [name, domain] = identifier.includes('@') ? identifier.split('@') : [identifier, 'example.com'];
  return `${name.charAt(0)}***@${domain}`;
}
