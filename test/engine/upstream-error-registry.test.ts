// The error registry: each row maps as stated, subclasses map through their bases, the hierarchy
// copy matches the upstream's exception list, and every row is documented in the OpenAPI document.
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { lineage, mapError } from '../../engine/errors.js';
import { HttpError } from '../../engine/http-error.js';
import { loadManifest } from '../../engine/manifest/load.js';
import { buildOpenApi } from '../../engine/openapi.js';
import { UpstreamError } from '../../engine/types.js';
import { fixtureManifestDir, fixturePlugins } from '../helpers/engine-app.js';
import { join } from 'node:path';
import { SHARED } from '../helpers/root.js';

const manifest = loadManifest(fixtureManifestDir(), { plugins: fixturePlugins });
const table = manifest.errors;
const map = (name: string, message = 'x', extra = {}) => mapError(new UpstreamError(name, message, extra), table);

t.test('every registry row maps to its status and hint', async (t) => {
  for (const [name, row] of Object.entries(table.rows)) {
    const mapped = map(name);
    t.equal(mapped.status, row.status, `${name} → ${row.status}`);
    t.equal(mapped.body.exc_type, name);
    t.equal(mapped.body.hint, row.hint);
    if (row.status === 429) t.ok(mapped.retryAfter! > 0, `${name} carries Retry-After`);
  }
});

t.test('statuses the issue names', async (t) => {
  const expected: Record<string, number> = {
    TwoFactorRequired: 401,
    ChallengeRequired: 403,
    FeedbackRequired: 429,
    PleaseWaitFewMinutes: 429,
    RateLimitError: 429,
    BadPassword: 401,
    BadCredentials: 401,
    UserNotFound: 404,
    MediaNotFound: 404,
    HashtagNotFound: 404,
    LocationNotFound: 404,
    DirectThreadNotFound: 404,
    StoryNotFound: 404,
    TrackNotFound: 404,
    CollectionNotFound: 404,
    HighlightNotFound: 404,
    NoteNotFound: 404,
    SignupSpamError: 429, // a FeedbackRequired subclass, through its base
    ChallengeSelfieCaptcha: 403, // a ChallengeError subclass
    HashtagPageWarning: 403, // ClientForbiddenError before HashtagError
  };
  for (const [name, status] of Object.entries(expected)) t.equal(map(name).status, status, `${name} → ${status}`);
  t.equal(map('NeverHeardOfIt').status, 502);
  t.equal(map('NeverHeardOfIt').body.exc_type, 'NeverHeardOfIt');
  t.equal(map('NewThrottle', 'x', { bases: ['RateLimitError'] }).status, 429, 'bases sent by a sidecar resolve an unknown subclass');
  const challenge = map('ChallengeRequired', 'challenge_required', { lastJson: { step_name: 'select_verify_method' } });
  t.same(challenge.body.last_json, { step_name: 'select_verify_method' });
  const user = map('UnknownError', "The username you entered doesn't appear to belong to an account. Please check your username and try again.");
  t.equal(user.status, 401);
  t.match(user.body.hint, /POST \/auth\/login/);
  t.equal(mapError(new HttpError(422, 'bad', { errors: [{ param: 'a', problem: 'b' }] }), table).status, 422);
  t.equal(mapError(new Error('secret password in message'), table).body.detail, 'Internal server error', 'unknown errors reveal nothing');
});

t.test('lineage walks bases nearest first', async (t) => {
  t.same(lineage('MediaNotFound', table).slice(0, 4), ['MediaNotFound', 'NotFoundError', 'MediaError', 'PrivateError']);
});

t.test('every registry row and message rule is documented in the OpenAPI document', async (t) => {
  const description = String((buildOpenApi(manifest).info as { description: string }).description);
  for (const [name, row] of Object.entries(table.rows)) t.match(description, new RegExp(`\\| ${name} \\| ${row.status} \\|`), `${name} documented`);
  for (const rule of table.messages) t.ok(description.includes(rule.contains), `message rule "${rule.contains}" documented`);
});

const shared = join(SHARED, 'upstream', 'aiograpi-1.0.9', 'exceptions.json');
t.test(
  'the hierarchy copy matches the upstream exception list',
  { skip: existsSync(shared) ? false : 'shared/upstream/aiograpi-1.0.9/exceptions.json is not beside the project' },
  async (t) => {
    const upstream = JSON.parse(readFileSync(shared, 'utf8')).exceptions as { name: string; bases: string[] }[];
    // aiograpi 1.12 added four classes to 1.0.9's list (issue 17); their bases are 1.0.9 classes.
    const added = {
      AccountEditError: ['PrivateError'],
      AccountContactPointRequired: ['AccountEditError'],
      CrosspostingDestinationError: ['ClientError'],
      DirectMessageRequestsDisabled: ['DirectError'],
    };
    t.equal(Object.keys(table.hierarchy).length, upstream.length + Object.keys(added).length);
    for (const e of upstream) t.same(table.hierarchy[e.name], e.bases, e.name);
    for (const [name, bases] of Object.entries(added)) t.same(table.hierarchy[name], bases, `${name} (1.12)`);
    for (const name of Object.keys(table.rows)) {
      const known = name in table.hierarchy;
      t.ok(
        known ||
          ['SidecarTimeout', 'SidecarUnavailable', 'SidecarUnsupportedParameter', 'SidecarUnsupported', 'SidecarCursorGone', 'DeviceKeyUnreadable'].includes(
            name,
          ),
        `${name} is an upstream exception (or the sidecar's own)`,
      );
    }
  },
);
