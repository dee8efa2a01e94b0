// One adapter test suite for every upstream: the same cases against the sandbox and the aiograpi
// sidecar (over the stand-in library), for the methods both implement. What a route sees must not
// depend on which upstream is in use.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { authenticator } from 'otplib';
import type { Test } from 'tap';
import { UpstreamError, type UpstreamAdapter, type UpstreamClient } from '../../engine/types.js';

export interface SuiteTarget {
  readonly name: string;
  /** A fresh adapter, torn down with the test. */
  make(t: Test): UpstreamAdapter;
  /** A photo post of the demo account in that adapter's world. */
  demoPhotoPk(adapter: UpstreamAdapter): string;
}

export const DEMO_PK = '5000000001';
const PASSWORD = 'demo-password';
const TOTP_SEED = 'JBSWY3DPEHPK3PXP';
const CHALLENGE_CODE = '123456';

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome instanceof UpstreamError) return outcome;
  throw new Error(`expected an UpstreamError, got ${outcome === undefined ? 'a result' : String(outcome)}`);
}

async function loggedIn(adapter: UpstreamAdapter, username = 'demo'): Promise<UpstreamClient> {
  const client = await adapter.open({ settings: {} });
  await client.call('login', { username, password: PASSWORD });
  return client;
}

export function adapterSuite(t: Test, target: SuiteTarget): void {
  t.test(`${target.name}: login, settings export, a client reopened from it`, async (t) => {
    const adapter = target.make(t);
    const client = await adapter.open({ settings: {}, locale: 'pt_PT', timezone: 3600 });
    t.equal(await client.call('login', { username: 'demo', password: PASSWORD }), true);
    const settings = await client.exportSettings();
    t.match(settings, { authorization_data: { ds_user_id: DEMO_PK }, locale: 'pt_PT', timezone_offset: 3600, uuids: { uuid: String } });
    t.same(await client.call('get_settings', {}), settings, 'get_settings is the export');
    const reopened = await adapter.open({ settings });
    t.match(await reopened.call('account_info', {}), { pk: DEMO_PK, username: 'demo' });
  });

  t.test(`${target.name}: records, pages and ids`, async (t) => {
    const adapter = target.make(t);
    const client = await loggedIn(adapter);
    const user = await client.call('user_info', { user_id: DEMO_PK });
    t.match(user, { pk: DEMO_PK, username: 'demo', full_name: 'Demo Account', is_private: false, follower_count: Number });
    t.match(await client.call('user_info_by_username', { username: 'demo' }), { pk: DEMO_PK });
    const [items, cursor] = (await client.call('user_followers_v1_chunk', { user_id: DEMO_PK, max_amount: 2 })) as [{ pk: string }[], string];
    t.equal(items.length, 2, 'a page of the amount asked');
    t.ok(
      items.every((u) => typeof u.pk === 'string' && /^\d+$/.test(u.pk)),
      'pks are digit strings',
    );
    t.type(cursor, 'string');
    t.not(cursor, '', 'more to come');
    const [next] = (await client.call('user_followers_v1_chunk', { user_id: DEMO_PK, max_amount: 2, max_id: cursor })) as [{ pk: string }[], string];
    t.notSame(
      next.map((u) => u.pk),
      items.map((u) => u.pk),
      'the cursor moves on',
    );
    const pk = target.demoPhotoPk(adapter);
    const media = (await client.call('media_info', { media_pk: pk })) as Record<string, unknown>;
    t.match(media, { pk, id: `${pk}_${DEMO_PK}`, code: String, media_type: 1, user: { pk: DEMO_PK } });
    t.match(media.taken_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/, 'datetimes are ISO 8601');
    t.equal(await client.call('media_pk_from_code', { code: 'zzz' }), '212211', 'shortcodes decode the same');
  });

  t.test(`${target.name}: downloads write into the folder given; uploads read the path given`, async (t) => {
    const adapter = target.make(t);
    const client = await loggedIn(adapter);
    const dir = await mkdtemp(join(tmpdir(), 'sg-suite-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const pk = target.demoPhotoPk(adapter);
    const path = (await client.call('photo_download', { media_pk: pk, folder: dir })) as string;
    t.equal(dirname(path), dir);
    t.ok(existsSync(path) && statSync(path).size > 0, 'the file is there');
    const photo = join(dir, 'upload.jpg');
    await writeFile(photo, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1]));
    const posted = await client.call('photo_upload', {
      path: photo,
      caption: 'hello',
      usertags: [{ user: { pk: '5000000002', username: 'demo_2fa' }, x: 0.5, y: 0.5 }],
    });
    t.match(posted, { pk: String, caption_text: 'hello', usertags: [{ user: { pk: '5000000002' }, x: 0.5, y: 0.5 }] });
  });

  t.test(`${target.name}: failures by exception name`, async (t) => {
    const adapter = target.make(t);
    const fresh = await adapter.open({ settings: {} });
    t.match(await failure(fresh.call('account_info', {})), { excType: 'LoginRequired' });
    t.match(await failure(fresh.call('login', { username: 'demo', password: 'wrong' })), { excType: 'BadPassword' });
    t.match(await failure(fresh.call('login', { username: 'nobody_here', password: PASSWORD })), {
      excType: 'UnknownError',
      message: /doesn't appear to belong to an account/,
    });
    const client = await loggedIn(adapter);
    const notFound = await failure(client.call('user_info', { user_id: '42' }));
    t.equal(notFound.excType, 'UserNotFound');
    t.ok(notFound.bases.includes('NotFoundError') && notFound.bases.includes('UserError'), 'with its bases');
    t.match(await failure(client.call('no_such_method', {})), { excType: 'AttributeError', message: "'Client' object has no attribute 'no_such_method'" });
    t.match(await failure(client.call('user_info', { user_id: DEMO_PK, nope: 1 })), {
      excType: /^(TypeError|SidecarUnsupportedParameter)$/,
      message: /unexpected keyword argument 'nope'/,
    });
    const throttled = await loggedIn(adapter, 'demo_throttled');
    t.match(await failure(throttled.call('user_info', { user_id: DEMO_PK })), { excType: 'PleaseWaitFewMinutes' });
  });

  t.test(`${target.name}: two-factor and challenge`, async (t) => {
    const adapter = target.make(t);
    const client = await adapter.open({ settings: {} });
    t.match(await failure(client.call('login', { username: 'demo_2fa', password: PASSWORD })), { excType: 'TwoFactorRequired' });
    t.equal(await client.call('login', { username: 'demo_2fa', password: PASSWORD, verification_code: authenticator.generate(TOTP_SEED) }), true);

    const challenged = await adapter.open({ settings: {} });
    const challenge = await failure(challenged.call('login', { username: 'demo_challenge', password: PASSWORD }));
    t.equal(challenge.excType, 'ChallengeRequired');
    t.ok(challenge.bases.includes('ChallengeError'));
    t.match(challenge.lastJson, { message: 'challenge_required', challenge: { api_path: /^\/challenge\/5000000003\// } });
    const lastJson = challenge.lastJson as Record<string, unknown>;
    t.match(await failure(challenged.call('challenge_resolve', { last_json: lastJson })), { excType: 'ChallengeRequired' }, 'no code: asks again, never waits');
    t.equal(await challenged.call('challenge_resolve', { last_json: lastJson }, { challengeCode: CHALLENGE_CODE }), true);
    t.equal(await challenged.call('login', { username: 'demo_challenge', password: PASSWORD }), true, 'resolved');
  });
}
