// Session-record fields a feature module owns (FeatureModule.recordFields, engine/record-fields.ts): a
// name two modules declare, or one of the engine's own, stops the boot naming both; a declared field
// round-trips through the encrypted store as the engine's own fields do; a write naming a field nobody
// declares is refused, and a stored one is kept and named in a warning; a declared field's move is a
// state change carrying the module's detail (the policy's frozen class: action, frozen_until).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { productModules } from '../../bin/compose.js';
import { openStore } from '../../adapters/store/index.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import { createMetrics } from '../../engine/metrics.js';
import { declaredRecordFields, mergeModules } from '../../engine/modules.js';
import { RecordFields } from '../../engine/record-fields.js';
import { Sessions } from '../../engine/sessions.js';
import type { FeatureModule, Logger, RecordField, SessionRecord, SessionStateChange, SessionStore } from '../../engine/types.js';
import { policyModule } from '../../plugins/policy/module.js';
import { fakeUpstream } from '../helpers/fake-upstream.js';

// A test module's field, typed on SessionRecord the way a feature module types its own.
declare module '../../engine/types/ports.js' {
  interface SessionRecord {
    readonly tag?: string;
  }
}

const TAG: RecordField = {
  name: 'tag',
  describe: 'a label the test module keeps',
  unchanged: { tag: null },
  changed: (before, after) => (before.tag === after.tag ? undefined : { data: { tag: after.tag ?? null }, id: [after.tag ?? ''] }),
};
const tagModule: FeatureModule = { name: 'tags', recordFields: [TAG] };
const dir = mkdtempSync(join(tmpdir(), 'record-fields-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const config = testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir });

t.test('a record field two modules declare, or one the engine keeps, stops the boot naming both', async (t) => {
  const again: FeatureModule = { name: 'other', recordFields: [{ name: 'tag', describe: 'again' }] };
  const message = /session-record field "tag" is declared by module tags and again by module other/;
  t.throws(() => mergeModules([tagModule, again]), message, 'the merge');
  t.throws(() => declaredRecordFields([tagModule, again]), message, 'what createApp checks');
  for (const name of ['state', 'throttledUntil', 'label', 'settings']) {
    const clash: FeatureModule = { name: 'x', recordFields: [{ name, describe: 'mine' }] };
    t.throws(() => mergeModules([clash]), new RegExp(`session-record field "${name}" is declared by the engine and again by module x`), name);
  }
  t.same(
    productModules().recordFields.map((field) => [field.module, field.name]),
    [['policy', 'frozen']],
    "the product's one module field is the policy's",
  );
});

function sessionsOn(store: SessionStore, fields: RecordFields): Sessions {
  const none = () => undefined;
  const options = { store, metrics: createMetrics(), log: createLogger('silent'), cacheSize: 10, recordTtlMs: 30_000, throttleBackoffSeconds: 60 };
  return new Sessions({ ...options, upstream: fakeUpstream(), throttled: none, challenged: () => false, fields });
}

const fieldsOf = (modules: readonly FeatureModule[], log?: Logger) => new RecordFields(declaredRecordFields(modules), log);

t.test('declared fields round-trip through the encrypted store; an undeclared one is refused on write, kept and named on read', async (t) => {
  const store = await openStore(config);
  t.teardown(() => store.close());
  const fields = fieldsOf([tagModule, policyModule]);
  const first = sessionsOn(store, fields);
  const client = await fakeUpstream().open({ settings: {} });
  const created = await first.create(client, { account: { pk: '42', username: 'demo' } });
  const frozen = { like: { until: 1_900_000_000_000, seconds: 3600 } };
  await first.update(created, { tag: 'vip', frozen }, 'tagged');
  await t.rejects(
    first.update(created, { nope: 1 } as Partial<SessionRecord>),
    /session record: field "nope" is declared by no feature module/,
    'a write naming a field nobody declares',
  );

  const reopened = await openStore(config);
  t.teardown(() => reopened.close());
  const read = await sessionsOn(reopened, fields).find(created.id);
  t.equal(read?.tag, 'vip', "the module's field, read back by another store on the file");
  t.same(read?.frozen, frozen, "the policy's field as it was stored");
  t.equal(read?.state, 'active');

  await reopened.set({ ...read!, legacy: 'from a module this build lacks' } as SessionRecord);
  const warnings: unknown[] = [];
  const log: Logger = { info: () => undefined, error: () => undefined, warn: (msg, f) => warnings.push([msg, f]) };
  const later = sessionsOn(reopened, fieldsOf([tagModule, policyModule], log));
  const kept = (await later.find(created.id)) as SessionRecord & { legacy?: string };
  t.equal(kept.legacy, 'from a module this build lacks', 'kept as read');
  await later.update(kept, { tag: 'gold' });
  t.equal(((await reopened.get(created.id)) as typeof kept).legacy, 'from a module this build lacks', 'and kept by the next write');
  t.same(warnings, [['session record field kept though no feature module declares it', { field: 'legacy' }]], 'named once, by name only');
});

const base: SessionRecord = { id: 's', account: { pk: '1', username: 'u' }, settings: {}, state: 'active', createdAt: 0, lastUsedAt: 0 };

t.test('a declared field that moved is a state change carrying its module detail', async (t) => {
  const product = new RecordFields(productModules().recordFields);
  const until = Date.UTC(2026, 10, 27, 5);
  const frozen = { ...base, frozen: { like: { until, seconds: 600 } } };
  t.same(product.stateChange(base, frozen, 'FeedbackRequired'), {
    record: frozen,
    from: 'active',
    to: 'active',
    reason: 'FeedbackRequired',
    throttledUntil: undefined,
    detail: { action: 'like', frozen_until: '2026-11-27T05:00:00.000Z' },
    detailId: ['like', until],
  });
  t.equal(product.stateChange(frozen, { ...frozen, lastUsedAt: 5 }, 'used'), undefined, 'the same freeze again is no change');
  const throttled = product.stateChange(base, { ...base, state: 'throttled', throttledUntil: until }, 'PleaseWaitFewMinutes');
  t.same([throttled?.detail, throttled?.detailId], [{ action: null, frozen_until: null }, []], "a throttle carries the policy's fields empty");

  const sessions = sessionsOn(await openStore(testConfig()), fieldsOf([tagModule, policyModule]));
  const heard: SessionStateChange[] = [];
  sessions.subscribe((_id, change) => change && heard.push(change));
  const created = await sessions.create(await fakeUpstream().open({ settings: {} }), { account: { pk: '7', username: 'x' } });
  await sessions.update(created, { tag: 'vip' }, 'tagged');
  t.same(
    heard.map((change) => [change.from, change.to, change.reason, change.detail, change.detailId]),
    [['active', 'active', 'tagged', { tag: 'vip', action: null, frozen_until: null }, ['vip']]],
    'the tag alone moved: its detail, the other fields empty',
  );
});
