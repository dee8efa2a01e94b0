// The README's "Adding a route" recipe works as written: its YAML block, appended to the routes of
// a copy of manifest/user.yaml, boots with the product's plugins on the sandbox, is served,
// validated and documented, and is marked beyond the catalogue so the faithfulness test knows it.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createStore } from '../../adapters/store/keyv.js';
import { createSandbox, FIXED } from '../../adapters/upstream/sandbox/index.js';
import { productParts } from '../../bin/compose.js';
import { createApp } from '../../engine/app.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import { serve } from '../helpers/http.js';
import { ROOT } from '../helpers/root.js';

const root = ROOT;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The first ```yaml block after the recipe's heading, and the file it names. */
function recipe(text: string): { file: string; yaml: string } {
  const section = text.slice(text.indexOf('### Adding a route'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  const file = /`(manifest\/[a-z-]+\.yaml)`/.exec(section)?.[1];
  if (!yaml || !file) throw new Error('the README has no "Adding a route" recipe with a YAML block naming its file');
  return { file, yaml };
}

t.test("the recipe's route boots, answers and is documented", async (t) => {
  const { file, yaml } = recipe(readme);
  const dir = mkdtempSync(join(tmpdir(), 'sg-recipe-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(root, 'manifest'), dir, { recursive: true });
  const target = join(dir, file.replace(/^manifest\//, ''));
  const before = readFileSync(target, 'utf8');
  t.match(before, /\nroutes:\n(?![\s\S]*\n[a-z_]+:)/, `${file} ends with its routes, so the block can be appended`);
  writeFileSync(target, `${before.trimEnd()}\n${yaml}`);

  const config = testConfig();
  const store = await createStore('memory://');
  const app = createApp({ config, upstream: createSandbox(), store, log: createLogger('silent'), ...productParts(config), manifestDir: dir });
  const client = await serve(app);
  t.teardown(() => client.close());
  const added = app.manifest.routes.find((route) => route.key === 'GET /user/id');
  t.ok(added, "the recipe's route is in the booted manifest");
  t.equal(added?.extension, true, 'marked beyond the catalogue (extension: true), which test/manifest/catalogue-faithful.test.ts leaves out');

  const login = await client.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
  const headers = { 'x-session-id': login.body as string };
  const pk = await client.request('GET', '/user/id?username=demo', { headers });
  t.equal(pk.status, 200);
  t.equal(pk.body, FIXED.demo, "demo's pk, from the sandbox");
  const missing = await client.request('GET', '/user/id', { headers });
  t.equal(missing.status, 422, 'validated: the required username');
  t.match(missing.text, /username/);
  const doc = (await client.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  t.ok(doc.paths['/user/id']?.get, 'documented in /openapi.json');
});
