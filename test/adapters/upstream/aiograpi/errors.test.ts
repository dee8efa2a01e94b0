// Failures through the sidecar: upstream exceptions by class name with their base chain, challenges
// with last_json and their one-call resolution, bad calls, and a library or interpreter that is missing.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createAiograpi } from '../../../../adapters/upstream/aiograpi/index.js';
import { UpstreamError } from '../../../../engine/types.js';
import { CHALLENGE_CODE, PASSWORD, standInAdapter } from '../../../helpers/sidecar.js';

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

t.test('upstream exceptions come back by class name with their base chain', async (t) => {
  const client = await standInAdapter(t).open({ settings: {} });
  const notFound = await rejection(client.call('user_info', { user_id: '42' }));
  t.equal(notFound.excType, 'UserNotFound');
  t.equal(notFound.message, 'User not found');
  t.same(notFound.bases, ['NotFoundError', 'UserError', 'PrivateError', 'ClientError', 'Exception', 'BaseException'], 'the MRO, nearest first');
  t.equal(notFound.lastJson, undefined, 'last_json only for challenges');

  const badPassword = await rejection(client.call('login', { username: 'demo', password: 'nope' }));
  t.match(badPassword, { excType: 'BadPassword', message: /password you entered is incorrect/ });
  const twoFactor = await rejection(client.call('login', { username: 'demo_2fa', password: PASSWORD }));
  t.equal(twoFactor.excType, 'TwoFactorRequired');
  const unknown = await rejection(client.call('login', { username: 'nobody', password: PASSWORD }));
  t.match(unknown, { excType: 'UnknownError', message: /doesn't appear to belong to an account/ });
  const throttled = await standInAdapter(t).open({ settings: {} });
  t.equal(await throttled.call('login', { username: 'demo_throttled', password: PASSWORD }), true);
  t.match(await rejection(throttled.call('user_info', { user_id: '5000000001' })), {
    excType: 'PleaseWaitFewMinutes',
    bases: ['PrivateError', 'ClientError', 'Exception', 'BaseException'],
  });
  const loginRequired = await rejection(client.call('account_info', {}));
  t.equal(loginRequired.excType, 'LoginRequired');
});

t.test('bad calls: unknown or private methods, wrong keywords, Python errors', async (t) => {
  const client = await standInAdapter(t).open({ settings: {} });
  for (const method of ['no_such_method', '_require_login', '__class__', 'settings']) {
    const error = await rejection(client.call(method, {}));
    t.match(error, { excType: 'AttributeError', bases: ['Exception', 'BaseException'] }, method);
  }
  const keyword = await rejection(client.call('user_info', { user_id: '5000000001', nope: 1 }));
  t.match(keyword, {
    excType: 'SidecarUnsupportedParameter',
    bases: ['TypeError'],
    message: /user_info\(\) got an unexpected keyword argument 'nope': aiograpi 1\.0\.9 does not take nope/,
  });
  const value = await rejection(client.call('media_pk_from_code', { code: 'a!b' }));
  t.match(value, { excType: 'ValueError', message: 'substring not found' });
  t.equal(await client.call('user_info', { user_id: '5000000001' }).then((u) => (u as { pk: string }).pk), '5000000001', 'the client still works');
});

t.test('a challenge is a ChallengeRequired with last_json, never a prompt', async (t) => {
  const logged: string[] = [];
  const log = { info: () => undefined, error: () => undefined, warn: (_: string, f?: Record<string, unknown>) => void logged.push(String(f?.line)) };
  const client = await standInAdapter(t, { log }).open({ settings: {} });
  const challenge = await rejection(client.call('login', { username: 'demo_challenge', password: PASSWORD }));
  t.equal(challenge.excType, 'ChallengeRequired');
  t.same(challenge.bases.slice(0, 2), ['ChallengeError', 'PrivateError']);
  t.match(challenge.lastJson, { message: 'challenge_required', challenge: { api_path: '/challenge/5000000003/Xyz12/' }, status: 'fail' });

  const lastJson = challenge.lastJson as Record<string, unknown>;
  const noCode = await rejection(client.call('challenge_resolve', { last_json: lastJson }));
  t.match(noCode, { excType: 'ChallengeRequired', message: /POST \/auth\/challenge\/resolve/ }, 'the default handler raises instead of input()');
  t.match(noCode.lastJson, { message: 'challenge_required' }, 'with the client last_json');

  const wrong = await rejection(client.call('challenge_resolve', { last_json: lastJson }, { challengeCode: '000000' }));
  t.match(wrong, { excType: 'ChallengeError', message: /check the code/ });
  t.equal(await client.call('challenge_resolve', { last_json: lastJson }, { challengeCode: CHALLENGE_CODE }), true, 'the code resolves it');
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.ok(
    logged.some((l) => l.startsWith('Code entered "[redacted]"')),
    'the library print() went to the log (stderr), not the protocol',
  );
  t.notOk(
    logged.some((l) => l.includes(CHALLENGE_CODE) || l.includes('000000')),
    'and the codes it printed were redacted',
  );
  const again = await rejection(client.call('challenge_resolve', { last_json: lastJson }));
  t.equal(again.excType, 'ChallengeRequired', 'the raising handler is back after that one call');
  t.equal(await client.call('login', { username: 'demo_challenge', password: PASSWORD }), true, 'login passes once resolved');

  const password = await rejection(client.call('challenge_resolve', { last_json: { step_name: 'change_password' } }, { challengeCode: CHALLENGE_CODE }));
  t.match(password, { excType: 'ChallengeRequired', message: /new password/ }, 'change_password_handler raises too');
});

t.test('a library that does not import: ready says why, calls are SidecarUnavailable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sg-broken-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'aiograpi'));
  await writeFile(join(dir, 'aiograpi', '__init__.py'), 'raise ModuleNotFoundError("No module named \'httpx\'")\n');
  const adapter = createAiograpi({ pythonPath: [dir] });
  t.teardown(() => adapter.close());
  t.same(await adapter.ready(), { ok: false, detail: "aiograpi is not importable: ModuleNotFoundError: No module named 'httpx'" });
  t.equal(adapter.library.version, 'unknown');
  t.same(await adapter.describe(), { name: 'aiograpi', version: 'unknown' }, 'describe answers without a version, it does not fail');
  const client = await adapter.open({ settings: {} });
  const error = await rejection(client.call('user_info', { user_id: '1' }));
  t.match(error, { excType: 'SidecarUnavailable', message: "aiograpi is not importable: ModuleNotFoundError: No module named 'httpx'" });
});

t.test('an interpreter that does not exist: ready says so, calls are SidecarUnavailable', async (t) => {
  const adapter = createAiograpi({ python: '/nonexistent/python3', restartDelayMs: 0 });
  t.teardown(() => adapter.close());
  const ready = await adapter.ready();
  t.equal(ready.ok, false);
  t.match(ready.detail, /^aiograpi sidecar is not running: .*\/nonexistent\/python3.*ENOENT/);
  t.same(await adapter.describe(), { name: 'aiograpi', version: 'unknown' }, 'describe answers even with no sidecar to ask');
  const client = await adapter.open({ settings: {} });
  const error = await rejection(client.call('user_info', { user_id: '1' }));
  t.equal(error.excType, 'SidecarUnavailable');
});
