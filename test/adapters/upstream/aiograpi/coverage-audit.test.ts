// The coverage audit: classification rules, the shared upstream list against the reference route
// map and against the manifest, the three output formats, introspection through the sidecar, failures.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { canonicalName, classify, isInternal, type AuditReport, type AuditRoute } from '../../../../adapters/upstream/aiograpi/coverage.js';
import type { MethodsDocument } from '../../../../adapters/upstream/aiograpi/index.js';
import { shippedMethodsPath } from '../../../../adapters/upstream/aiograpi/options.js';
import { readMethods, runAudit } from '../../../../bin/audit.js';
import { FIXTURES } from '../../../helpers/sidecar.js';
import { fromRoot, SHARED } from '../../../helpers/root.js';

// The specification sits beside the project (../shared), wherever the project is checked out.
const METHODS = `${SHARED}/upstream/aiograpi-1.0.9/methods.json`;
const skip = existsSync(METHODS) ? false : `the shared upstream list (${METHODS}) is not here`;
const referenceRoutes = (): AuditRoute[] => (JSON.parse(readFileSync(`${SHARED}/spec/route-upstream-map.json`, 'utf8')) as { routes: AuditRoute[] }).routes;

async function run(argv: string[], deps: Parameters<typeof runAudit>[2] = {}): Promise<{ code: number; text: string; notes: string }> {
  let text = '';
  let notes = '';
  const code = await runAudit(argv, (s) => void (text += s), { note: (s) => void (notes += s), ...deps });
  return { code, text, notes };
}

t.test('rules: variants, internals, unknown names', async (t) => {
  t.equal(canonicalName('user_followers_gql_chunk'), 'user_followers');
  t.equal(canonicalName('user_medias_paginated_v1'), 'user_medias');
  t.equal(canonicalName('media_info_a1'), 'media_info');
  t.equal(canonicalName('hashtag_medias_recent_v1'), 'hashtag_medias_recent');
  for (const [name, area, internal] of [
    ['private_request', 'private', true],
    ['bloks_action', 'bloks', true],
    ['login_flow', 'auth', true],
    ['signup', 'signup', true],
    ['challenge_resolve_simple', 'challenge', true],
    ['set_country', 'private', true],
    ['photo_configure', 'photo', true],
    ['photo_rupload', 'photo', true],
    ['clip_music_extra_data', 'clip', true],
    ['private_graphql_followers_list', 'user', true],
    ['media_id', 'media', false],
    ['notification_likes', 'notification', false],
    ['user_id_from_username', 'user', false],
  ] as const)
    t.equal(isInternal({ name, area }), internal, `${name} (${area})`);

  const doc = {
    library: 'aiograpi',
    version: 'x',
    methods: [
      { name: 'user_info', area: 'user', params: [] },
      { name: 'user_info_v1', area: 'user', params: [] },
      { name: 'user_info_gql', area: 'user', params: [] },
      { name: 'set_proxy', area: '__init__', params: [] },
      { name: 'media_id', area: 'media', params: [] },
    ],
  };
  const report = classify(doc, [
    { method: 'GET', path: '/user/info', upstream: ['user_info', 'user_gone'] },
    { method: 'GET', path: '/health', upstream: [] },
  ]);
  t.same(
    report.methods.map((m) => [m.name, m.class]),
    [
      ['media_id', 'candidate'],
      ['set_proxy', 'internal'],
      ['user_info', 'exposed'],
      ['user_info_gql', 'duplicate'],
      ['user_info_v1', 'duplicate'],
    ],
  );
  t.same(report.methods.find((m) => m.name === 'user_info')?.routes, ['GET /user/info']);
  t.same(report.methods.find((m) => m.name === 'user_info_v1')?.variantOf, ['user_info']);
  t.same(report.unknown, ['user_gone'], 'a name the upstream lacks');
  t.match(report, { upstream_total: 5, exposed: 1, duplicate: 2, internal: 1, candidate: 1 });
  t.same(
    report.areas.find((a) => a.area === 'user'),
    { area: 'user', total: 3, exposed: 1, duplicate: 2, internal: 0, candidate: 0 },
  );
});

t.test('a route for a newer library: its names are not unknown to an older one, and are listed as awaiting it', async (t) => {
  const routes: AuditRoute[] = [
    { method: 'GET', path: '/story/likers', upstream: ['story_likers_chunk'], needs: '1.12' },
    { method: 'GET', path: '/x', upstream: ['gone'] },
  ];
  const old = classify({ version: '1.0.9', methods: [{ name: 'story_info', area: 'story', params: [] }] }, routes);
  t.same(old.unknown, ['gone'], 'only the name no route excuses is unknown');
  t.same(old.newer, [{ route: 'GET /story/likers', since: '1.12', absent: ['story_likers_chunk'] }]);
  const current = classify({ version: '1.12.13', methods: [{ name: 'story_likers_chunk', area: 'story', params: [] }] }, routes);
  t.same(current.newer, [{ route: 'GET /story/likers', since: '1.12', absent: [] }], 'a new enough library has every method');
  t.equal(current.methods[0].class, 'exposed');
  const claimed = classify({ version: '1.12.13', methods: [] }, routes);
  t.same(claimed.unknown, ['gone', 'story_likers_chunk'], 'a library that claims the version but lacks the method: the audit fails');
});

t.test('the shared list against the reference route map: 520 methods, 288 exposed', { skip }, async (t) => {
  const report = classify(readMethods(METHODS), referenceRoutes());
  t.match(report, { library: 'aiograpi', version: '1.0.9', upstream_total: 520, exposed: 288, duplicate: 68, internal: 109, candidate: 55 });
  t.same(report.unknown, []);
  t.equal(
    report.areas.reduce((n, a) => n + a.total, 0),
    520,
    'areas add up',
  );
  for (const a of report.areas) t.equal(a.exposed + a.duplicate + a.internal + a.candidate, a.total, a.area);
  t.same(report.methods.find((m) => m.name === 'user_followers_gql')?.variantOf, ['user_followers_v1_chunk']);
  t.equal(report.methods.find((m) => m.name === 'bloks_action')?.class, 'internal');
  t.equal(report.methods.find((m) => m.name === 'notification_likes')?.class, 'candidate');
});

t.test('socialgate audit --json --methods: the manifest against the shared list', { skip }, async (t) => {
  const { code, text } = await run(['--json', '--methods', METHODS]);
  const report = JSON.parse(text) as AuditReport;
  t.same(Object.keys(report).slice(2, 10), ['upstream_total', 'exposed', 'duplicate', 'internal', 'candidate', 'areas', 'routes', 'unknown']);
  t.same(report.unknown, [], 'every upstream name the manifest uses exists');
  t.equal(code, 0);
  t.equal(report.upstream_total, 520);
  const apiRoutes = report.routes.filter((r) => r.upstream.length > 0).length;
  t.equal(report.exposed, 288, { todo: apiRoutes < 260 ? `the manifest is not complete yet (${apiRoutes} routes reach the upstream)` : false });
});

t.test('text and markdown formats', { skip }, async (t) => {
  const deps = { loadRoutes: referenceRoutes };
  const text = await run(['--methods', METHODS], deps);
  t.equal(text.code, 0);
  t.match(text.text, /^aiograpi 1\.0\.9: 520 public Client methods, 277 routes\n/);
  t.match(text.text, /\n  exposed     288   reached by a route\n/);
  t.match(text.text, /\nnotification\s+27\s+\d+\s+\d+\s+\d+\s+\d+\n/, 'a row per area');
  t.match(text.text, /\ncandidates\n.*notification_likes/s);
  t.match(text.text, /unknown upstream names in the manifest: none\nkeywords the library no longer takes: none\n$/);
  const md = await run(['--markdown', '--methods', METHODS], deps);
  t.match(md.text, /^# aiograpi method coverage\n/);
  t.match(md.text, /\| exposed \| 288 \| reached by a route \|/);
  t.match(md.text, /\| `GET \/user\/followers` \| `user_followers_v1_chunk` \|/);
  t.match(md.text, /\| `user_followers_gql` \| `user` \| duplicate \| `user_followers_v1_chunk` \|/);
  t.equal(md.text.split('\n').filter((l) => l.startsWith('| `') && / \| (exposed|duplicate|internal|candidate) \| /.test(l)).length, 520, 'one row per method');
});

t.test('installed library through the sidecar; unknown names fail the audit', async (t) => {
  process.env.SOCIALGATE_PYTHONPATH = FIXTURES;
  t.teardown(() => void delete process.env.SOCIALGATE_PYTHONPATH);
  const loadRoutes = () => [
    { method: 'GET', path: '/user/info', upstream: ['user_info'] },
    { method: 'GET', path: '/user/medias', upstream: ['user_medias_paginated_v1'] },
  ];
  const { code, text } = await run(['--json'], { loadRoutes });
  const report = JSON.parse(text) as AuditReport;
  t.equal(code, 1, 'fails');
  t.match(report, { library: 'aiograpi', version: '1.0.9', exposed: 1, unknown: ['user_medias_paginated_v1'] });
  t.ok(report.upstream_total >= 20, 'the stand-in methods');
  t.match(
    report.methods.find((m) => m.name === 'user_info'),
    { class: 'exposed', signature: '(self, user_id: str) -> User' },
  );
  const plain = await run([], { loadRoutes });
  t.match(
    plain.text,
    'unknown upstream names in the manifest (1; the audit fails):\n  user_medias_paginated_v1  (GET /user/medias)\n' +
      'keywords the library no longer takes: none\n',
  );
});

t.test('usage and input errors', async (t) => {
  t.equal((await run(['--json', '--markdown'])).code, 2);
  const bogus = await run(['--bogus']);
  t.equal(bogus.code, 2);
  t.match(bogus.text, /Unknown option '--bogus'[\s\S]*usage: socialgate audit/);
  t.equal((await run(['--help'])).code, 0);
  const dir = mkdtempSync(join(tmpdir(), 'sg-audit-'));
  writeFileSync(join(dir, 'bad.json'), '{"methods": [{"nom": 1}]}');
  await t.rejects(run(['--methods', join(dir, 'bad.json')], { loadRoutes: () => [] }), { message: /is not a method list/ });
  await t.rejects(run(['--methods', join(dir, 'missing.json')], { loadRoutes: () => [] }), { message: /cannot read the method list/ });
  writeFileSync(join(dir, 'list.json'), JSON.stringify([{ name: 'user_info', area: 'user', params: [] }]));
  const bare = readMethods(join(dir, 'list.json')) as MethodsDocument;
  t.same(
    bare.methods.map((m) => m.name),
    ['user_info'],
    'a bare array is accepted',
  );
  const missingPython = await run(['--python', '/nonexistent/python3'], { loadRoutes: () => [] }).catch((e: Error) => e);
  t.match(missingPython, { message: /aiograpi sidecar is not running.*pass --methods FILE/ });
});

t.test('the shipped method list is the shared 1.0.9 list (drift)', { skip }, async (t) => {
  t.same(JSON.parse(readFileSync(shippedMethodsPath(), 'utf8')), JSON.parse(readFileSync(METHODS, 'utf8')));
});

t.test('no installed aiograpi: the audit uses the shipped list and says so on the side', async (t) => {
  const introspect = async () => Promise.reject(new Error('aiograpi is not importable: ModuleNotFoundError'));
  const { code, text, notes } = await run(['--json'], { introspect });
  const report = JSON.parse(text) as AuditReport;
  t.match(report, { version: '1.0.9', upstream_total: 520, unknown: [], missing_keywords: [], signature_changes: [] });
  t.equal(code, 0);
  t.match(notes, /aiograpi is not importable.*using the method list of aiograpi 1\.0\.9 shipped with socialgate/);
  const named = await run(['--json', '--python', '/nonexistent/python3'], { introspect }).catch((e: Error) => e);
  t.match(named, { message: /not importable/ }, 'an interpreter named with --python must work');
});

t.test('the documented `audit --markdown > docs/aiograpi-coverage.md` page is current', async (t) => {
  const page = fromRoot('docs', 'aiograpi-coverage.md');
  const md = await run(['--markdown', '--methods', shippedMethodsPath()]);
  t.equal(
    readFileSync(page, 'utf8'),
    md.text,
    'regenerate with: node bin/socialgate.js audit --markdown --methods adapters/upstream/aiograpi/methods-1.0.9.json > docs/aiograpi-coverage.md',
  );
});

t.test('keywords: one the installed library lacks fails the audit; changed signatures are listed', async (t) => {
  const baseline = {
    library: 'aiograpi',
    version: '1.0.9',
    methods: [
      {
        name: 'photo_upload',
        area: 'photo',
        params: [
          { name: 'path', required: true },
          { name: 'caption', required: true },
        ],
      },
      {
        name: 'direct_threads',
        area: 'direct',
        params: [
          { name: 'amount', default: '20', required: false },
          { name: 'selected_filter', default: "''", required: false },
        ],
      },
    ],
  };
  const installed = {
    library: 'aiograpi',
    version: '1.12.13',
    methods: [
      {
        name: 'photo_upload',
        area: 'photo',
        params: [
          { name: 'path', required: true },
          { name: 'caption', required: true },
          { name: 'scheduled_at', default: 'None', required: false },
        ],
      },
      {
        name: 'direct_threads',
        area: 'direct',
        params: [
          { name: 'amount', default: '20', required: false },
          { name: 'selected_filter', default: 'None', required: false },
        ],
      },
      { name: 'account_edit', area: 'account', params: [], varkw: true },
    ],
  };
  const report = classify(
    installed,
    [
      { method: 'POST', path: '/photo/upload', upstream: ['photo_upload'], keywords: { photo_upload: ['caption', 'path', 'usertags'] } },
      { method: 'GET', path: '/direct/threads', upstream: ['direct_threads'], keywords: { direct_threads: ['amount', 'selected_filter'] } },
      { method: 'POST', path: '/account/edit', upstream: ['account_edit'], keywords: { account_edit: ['anything'] } },
    ],
    baseline,
  );
  t.same(report.missing_keywords, [{ method: 'photo_upload', keyword: 'usertags', routes: ['POST /photo/upload'] }], '**kwargs takes any keyword');
  t.same(report.signature_changes, [
    { method: 'direct_threads', added: [], removed: [], defaults: ["selected_filter: '' → None"] },
    { method: 'photo_upload', added: ['scheduled_at'], removed: [], defaults: [] },
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'sg-audit-'));
  writeFileSync(join(dir, 'installed.json'), JSON.stringify(installed));
  const loadRoutes = () => [{ method: 'POST', path: '/photo/upload', upstream: ['photo_upload'], keywords: { photo_upload: ['caption', 'path', 'usertags'] } }];
  const cli = await run(['--methods', join(dir, 'installed.json')], { loadRoutes });
  t.equal(cli.code, 1, 'a missing keyword fails the audit');
  t.match(cli.text, /keywords the library no longer takes \(1; the audit fails\):\n  photo_upload\(usertags=\.\.\.\)  \(POST \/photo\/upload\)\n/);
});

t.test('the real manifest: every keyword it and the plugins pass is a 1.0.9 parameter', async (t) => {
  const { code, text } = await run(['--json', '--methods', shippedMethodsPath()]);
  const report = JSON.parse(text) as AuditReport;
  t.same(report.missing_keywords, []);
  t.equal(code, 0);
  const login = report.routes.find((r) => r.path === '/auth/login');
  t.same(login?.keywords?.login, ['password', 'username', 'verification_code'], 'plugin keywords are checked too');
});
