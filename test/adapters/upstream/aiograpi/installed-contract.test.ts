// The sidecar against an installed aiograpi, found through the settings that
// choose the sidecar's Python (SOCIALGATE_PYTHON, SOCIALGATE_PYTHONPATH), never through the
// stand-in's folder. It skips, saying so, when no aiograpi is importable there (CI has none; this
// machine cannot install the real one: pydantic 2, orjson and zstandard need compiled wheels no
// Debian package here provides). What it checks needs no platform: the library imports and names
// its version; every method and keyword the manifest (and the plugins) pass exists in it, by the
// audit's own check; a client opens from a settings export without calling the platform and its
// export comes back as a session record would keep it; and at DEBUG, the most the library logs,
// no secret of that export reaches the service log. SOCIALGATE_PYTHONPATH=test/fixtures runs it
// against the stand-in, which implements a subset of the methods: there the method check fails
// naming the rest, and every other check passes.
// Issue 27, point 2: true to the releases. The version is read as the sidecar reads it (neither
// release defines __version__: it is the package metadata); the 1.12 export carries a real P-256
// device key, generated here (1.12 parses it while building the client); and an export whose key
// the library cannot read is answered with the named 401 DeviceKeyUnreadable and its way out.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { delimiter, dirname } from 'node:path';
import { createAiograpi } from '../../../../adapters/upstream/aiograpi/index.js';
import { classify } from '../../../../adapters/upstream/aiograpi/coverage.js';
import { resolveOptions, shippedMethodsPath } from '../../../../adapters/upstream/aiograpi/options.js';
import { mapError } from '../../../../engine/errors.js';
import { UpstreamError } from '../../../../engine/types.js';
import { auditRoute, readMethods } from '../../../../bin/audit.js';
import { defaultManifestDir, loadManifest } from '../../../../engine/manifest/load.js';
import { testConfig } from '../../../../engine/config.js';
import { productRegistries } from '../../../../bin/compose.js';
import type { Logger } from '../../../../engine/types.js';

const python = process.env.SOCIALGATE_PYTHON || 'python3';
const pythonPath = (process.env.SOCIALGATE_PYTHONPATH ?? '').split(delimiter).filter(Boolean);
// The sidecar's own reading of the version (sidecar.py: library_version), not a guess at an attribute.
const READ_VERSION =
  'import sys; sys.path.insert(0, sys.argv[1]); import aiograpi; from sidecar import library_version; sys.stdout.write(library_version(aiograpi))';
const probe = spawnSync(python, ['-c', READ_VERSION, dirname(resolveOptions({}).sidecarPath)], {
  encoding: 'utf8',
  env: { ...process.env, PYTHONPATH: [...pythonPath, process.env.PYTHONPATH ?? ''].filter(Boolean).join(delimiter) },
});
const installed = probe.status === 0 ? probe.stdout.trim() : undefined;
const skip = installed
  ? false
  : `no aiograpi importable by ` +
    `${python}${pythonPath.length ? ` with SOCIALGATE_PYTHONPATH=${pythonPath.join(delimiter)}` : ''}: install ` +
    `aiograpi (1.0.9 or 1.12.x) there to run the contract test`;

// A device signing key as 1.12 makes one (ECC.generate(curve="P-256").export_key(format="PEM")).
const DEVICE_KEY = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
const SECRETS = { sessionid: '5000000001%3AcontractSecretSession%3A28', private_key: DEVICE_KEY };
const EXPORT = {
  uuids: {
    phone_id: '00000000-0000-4000-8000-000000000001',
    uuid: '00000000-0000-4000-8000-000000000002',
    client_session_id: '00000000-0000-4000-8000-000000000003',
    advertising_id: '00000000-0000-4000-8000-000000000004',
  },
  cookies: { sessionid: SECRETS.sessionid, ds_user_id: '5000000001' },
  authorization_data: { ds_user_id: '5000000001', sessionid: SECRETS.sessionid },
  usdid: { usdid: '00000000-0000-4000-8000-000000000005', kid: 'Zm9yLXRoZS1jb250cmFjdC10ZXN0LW9ubHktMDAwMDAwMDA', private_key: DEVICE_KEY, registered: false },
  last_login: 1_700_000_000,
  device_settings: {},
  user_agent: 'Instagram 269.0.0.18.75 Android',
  locale: 'en_US',
  country: 'US',
  timezone_offset: 0,
};

t.test(`the sidecar against the installed aiograpi ${installed ?? ''}`, { skip }, async (t) => {
  const lines: string[] = [];
  const log: Logger = {
    info: (msg, f) => lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
    warn: (msg, f) => lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
    error: (msg, f) => lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
  };
  const adapter = createAiograpi({ python, pythonPath, logLevel: 'DEBUG', log, timeoutMs: 20_000 });
  t.teardown(() => adapter.close());

  const library = await adapter.describe();
  t.equal(library.version, installed, `the sidecar runs aiograpi ${installed}`);
  t.ok((await adapter.ready()).detail?.includes(`aiograpi ${installed} `), '/ready names the version');

  const doc = await adapter.introspect();
  const routes = loadManifest(defaultManifestDir(), productRegistries(testConfig())).routes.map((route) => auditRoute(route));
  const report = classify(doc, routes, readMethods(shippedMethodsPath()));
  t.same(report.unknown, [], 'every method the manifest calls exists in the installed library');
  t.same(report.missing_keywords, [], 'every keyword the manifest passes is a parameter (those of newer versions excepted)');
  t.comment(`signature changes against 1.0.9: ${report.signature_changes.map((c) => c.method).join(', ') || 'none'}`);

  const client = await adapter.open({ settings: EXPORT, sessionKey: '5000000001' });
  const exported = await client.exportSettings();
  t.match(
    exported,
    { authorization_data: { ds_user_id: '5000000001' }, uuids: { uuid: EXPORT.uuids.uuid } },
    'an export comes back from the client built from it',
  );
  await client.close();
  const text = lines.join('\n');
  for (const [name, secret] of Object.entries(SECRETS)) t.notOk(text.includes(secret), `no ${name} in the service log at DEBUG`);
  const keyLines = DEVICE_KEY.split('\n').filter((line) => line && !line.startsWith('-----'));
  t.notOk(
    keyLines.some((line) => text.includes(line)),
    'no line of the device key in the service log',
  );

  const unreadable = await adapter.open({ settings: { ...EXPORT, usdid: { ...EXPORT.usdid, private_key: 'not-a-key' } }, sessionKey: '5000000001' });
  const outcome = await unreadable.exportSettings().then(
    () => undefined,
    (error: unknown) => error,
  );
  await unreadable.close();
  if (!library.capabilities?.device_key) {
    t.equal(outcome, undefined, `aiograpi ${installed} keeps no device key: an export with an unreadable one still builds a client`);
    return;
  }
  t.type(outcome, UpstreamError);
  t.equal((outcome as UpstreamError).excType, 'DeviceKeyUnreadable', "the library's failure is named");
  const { errors } = loadManifest(defaultManifestDir(), productRegistries(testConfig()));
  const mapped = mapError(outcome, errors);
  t.equal(mapped.status, 401, 'a 4xx, never a 5xx');
  t.match(mapped.body, { exc_type: 'DeviceKeyUnreadable', hint: /log in again.*import a fresh settings export/ });
  t.notOk(JSON.stringify(mapped.body).includes('not-a-key'), 'the key is not in the body');
});
