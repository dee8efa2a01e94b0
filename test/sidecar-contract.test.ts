// Issue 17, point 7: the sidecar against an installed aiograpi, found through the settings that
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
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { delimiter } from 'node:path';
import { createAiograpi } from '../adapters/upstream/aiograpi/index.js';
import { classify } from '../adapters/upstream/aiograpi/coverage.js';
import { shippedMethodsPath } from '../adapters/upstream/aiograpi/options.js';
import { auditRoute, readMethods } from '../bin/audit.js';
import { defaultManifestDir, loadManifest } from '../engine/manifest/load.js';
import { testConfig } from '../engine/config.js';
import { productRegistries } from '../bin/compose.js';
import type { Logger } from '../engine/types.js';

const python = process.env.SOCIALGATE_PYTHON || 'python3';
const pythonPath = (process.env.SOCIALGATE_PYTHONPATH ?? '').split(delimiter).filter(Boolean);
const probe = spawnSync(python, ['-c', 'import aiograpi, sys; sys.stdout.write(getattr(aiograpi, "__version__", "") or "?")'], {
  encoding: 'utf8', env: { ...process.env, PYTHONPATH: [...pythonPath, process.env.PYTHONPATH ?? ''].filter(Boolean).join(delimiter) },
});
const installed = probe.status === 0 ? probe.stdout.trim() : undefined;
const skip = installed ? false : `no aiograpi importable by ${python}${pythonPath.length ? ` with SOCIALGATE_PYTHONPATH=${pythonPath.join(delimiter)}` : ''}: install aiograpi (1.0.9 or 1.12.x) there to run the contract test`;

const SECRETS = { sessionid: '5000000001%3AcontractSecretSession%3A28', private_key: 'contract-private-key-material-abc' };
const EXPORT = {
  uuids: { phone_id: '00000000-0000-4000-8000-000000000001', uuid: '00000000-0000-4000-8000-000000000002', client_session_id: '00000000-0000-4000-8000-000000000003', advertising_id: '00000000-0000-4000-8000-000000000004' },
  cookies: { sessionid: SECRETS.sessionid, ds_user_id: '5000000001' },
  authorization_data: { ds_user_id: '5000000001', sessionid: SECRETS.sessionid },
  usdid: { private_key: SECRETS.private_key },
  last_login: 1_700_000_000, device_settings: {}, user_agent: 'Instagram 269.0.0.18.75 Android', locale: 'en_US', country: 'US', timezone_offset: 0,
};

t.test(`the sidecar against the installed aiograpi ${installed ?? ''}`, { skip }, async (t) => {
  const lines: string[] = [];
  const log: Logger = { info: (msg, f) => lines.push(`${msg} ${JSON.stringify(f ?? {})}`), warn: (msg, f) => lines.push(`${msg} ${JSON.stringify(f ?? {})}`), error: (msg, f) => lines.push(`${msg} ${JSON.stringify(f ?? {})}`) };
  const adapter = createAiograpi({ python, pythonPath, logLevel: 'DEBUG', log, timeoutMs: 20_000 });
  t.teardown(() => adapter.close());

  const library = await adapter.describe();
  t.equal(library.version, installed, `the sidecar runs aiograpi ${installed}`);
  t.match((await adapter.ready()).detail, new RegExp(`aiograpi ${installed!.replace(/\./g, '\\.')}`));

  const doc = await adapter.introspect();
  const routes = loadManifest(defaultManifestDir(), productRegistries(testConfig())).routes.map((route) => auditRoute(route));
  const report = classify(doc, routes, readMethods(shippedMethodsPath()));
  t.same(report.unknown, [], 'every method the manifest calls exists in the installed library');
  t.same(report.missing_keywords, [], 'every keyword the manifest passes is a parameter (those of newer versions excepted)');
  t.comment(`signature changes against 1.0.9: ${report.signature_changes.map((c) => c.method).join(', ') || 'none'}`);

  const client = await adapter.open({ settings: EXPORT, sessionKey: '5000000001' });
  const exported = await client.exportSettings();
  t.match(exported, { authorization_data: { ds_user_id: '5000000001' }, uuids: { uuid: EXPORT.uuids.uuid } }, 'an export comes back from the client built from it');
  await client.close();
  const text = lines.join('\n');
  for (const [name, secret] of Object.entries(SECRETS)) t.notOk(text.includes(secret), `no ${name} in the service log at DEBUG`);
});
