// Event types are declared once, by the module that emits them (FeatureModule.eventTypes, merged at
// boot); every other place that names them is checked against those declarations, both ways:
// GET /events/types (the manifest's constant), the watch route's `kinds`, the console's webhook
// form and the CLI's event lines.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productModules, productRegistries } from '../../../bin/compose.js';
import { eventLine } from '../../../bin/events.js';
import { testConfig } from '../../../engine/config.js';
import { defaultManifestDir, loadManifest, projectRoot } from '../../../engine/manifest/load.js';
import { WATCH_KINDS } from '../../../adapters/events/sources.js';

const declared = productModules().eventTypes;
const types = declared.map((row) => row.type);
const manifest = loadManifest(defaultManifestDir(), productRegistries(testConfig()));
const route = (key: string) => manifest.routes.find((r) => r.key === key)!;

t.test('each event type is declared by one module', async (t) => {
  t.same(new Set(types).size, types.length);
  t.ok(types.includes('session.state.changed') && types.includes('job.failed'), `${types.length} types: ${types.join(', ')}`);
});

t.test('GET /events/types lists exactly the declared types, with their meanings', async (t) => {
  const listed = route('GET /events/types').result.options.value as { type: string; description: string }[];
  t.same(listed.map((row) => row.type).sort(), [...types].sort());
  for (const row of declared) t.equal(listed.find((l) => l.type === row.type)?.description, row.describe, `${row.type}'s meaning`);
});

t.test("the watch route's kinds are the watcher's types", async (t) => {
  const kinds = route('POST /events/watch').params.find((p) => p.name === 'kinds')!;
  const schema = kinds.schema as { enum?: string[]; items?: { enum?: string[] } };
  t.same([...(schema.enum ?? schema.items?.enum ?? [])].sort(), [...WATCH_KINDS].sort());
  for (const kind of WATCH_KINDS) t.ok(types.includes(kind), `${kind} is declared`);
});

t.test("the console's webhook form offers every declared type (or its family) and nothing else", async (t) => {
  const text = readFileSync(join(projectRoot(), 'console', 'webhooks.js'), 'utf8');
  const offered = JSON.parse(text.match(/const KINDS = (\[[^\]]*\]);/)![1]!.replace(/'/g, '"')) as string[];
  const covers = (kind: string, type: string) => kind === type || (kind.endsWith('.*') && type.startsWith(kind.slice(0, -1)));
  for (const type of types)
    t.ok(
      offered.some((kind) => covers(kind, type)),
      `${type} is offered`,
    );
  for (const kind of offered)
    t.ok(
      types.some((type) => covers(kind, type)),
      `${kind} is a declared type or family`,
    );
});

t.test('the CLI summarises every type but the jobs (which print their data)', async (t) => {
  for (const type of types.filter((type) => !type.startsWith('job.'))) {
    t.notMatch(eventLine('1', { type, timestamp: 'now', data: {} }), /\{\}$/, `${type} has a summary`);
  }
});
