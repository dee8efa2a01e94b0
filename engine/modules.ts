// Merges the feature modules the composition root lists into what the engine consumes: one table of
// plugins, errors, settings, event types, session sources, session views, resolvers, session-record
// fields and assets. Two modules declaring one name stop the boot with an error naming both (Fastify refuses a
// second decorator of one name the same way): a later module never silently replaces an earlier one.
// Per app, startModules starts them in the order their `needs` ask for and binds each module's parts
// to its plugins, guards, session sources and views (./module-start.ts).
import type { ServiceErrorRow } from './service-errors.js';
import { type DeclaredRecordField, ENGINE_RECORD_FIELDS } from './record-fields.js';
import type { EventTypeRow, FeatureModule, KeyProof, Plugin, Resolver, SessionSource, SettingRow } from './types.js';
import type Koa from 'koa';

/** Reads a module's settings from config.extra (throwing an Error that names a bad one). */
export type SettingsParser = (extra: Record<string, string>) => unknown;

/**
 * Rows checked by the module's own parser, so a bad value stops the start naming the setting:
 * `const row = settingRow(mySettings); row('MY_SETTING', '10', 'what it does')`. Without a parser
 * the row takes any text.
 */
export function settingRow(parse?: SettingsParser) {
  return (name: string, value: string, describe: string): SettingRow =>
    parse ? { name, default: value, describe, parse: (raw) => parse({ [name]: raw }) } : { name, default: value, describe };
}

/** A setting row with the module that declares it (the table's "module" column). */
export interface DeclaredSetting extends SettingRow {
  readonly module: string;
}

export interface MergedModules {
  readonly names: readonly string[];
  readonly plugins: Readonly<Record<string, Plugin>>;
  readonly errors: Readonly<Record<string, ServiceErrorRow>>;
  readonly settings: readonly DeclaredSetting[];
  readonly eventTypes: readonly EventTypeRow[];
  readonly sessionSources: readonly SessionSource[];
  /** The modules in the order the composition root lists them (createApp starts them). */
  readonly modules: readonly FeatureModule[];
  readonly resolvers: Readonly<Record<string, Resolver>>;
  readonly keyProofs: readonly KeyProof[];
  /** The session-record fields the modules declare, with their module. */
  readonly recordFields: readonly DeclaredRecordField[];
  /** Every module's served assets, by exact path. */
  assets(): ReadonlyMap<string, Koa.Middleware>;
}

/** Names the engine itself declares (its own error codes and settings): a module may not declare them again. */
export interface Reserved {
  readonly errors?: Iterable<string>;
  readonly settings?: Iterable<string>;
}

export function mergeModules(modules: readonly FeatureModule[], reserved: Reserved = {}): MergedModules {
  const claims = new Claims();
  for (const name of reserved.errors ?? []) claims.claim('error code', name, 'the engine');
  for (const name of reserved.settings ?? []) claims.claim('setting', name, 'the engine');
  for (const module of modules) claimAll(claims, module);
  return Object.freeze({
    names: modules.map((m) => m.name),
    plugins: Object.freeze(Object.assign({}, ...modules.map((m) => m.plugins ?? {})) as Record<string, Plugin>),
    errors: Object.freeze(Object.assign({}, ...modules.map((m) => m.errors ?? {})) as Record<string, ServiceErrorRow>),
    settings: Object.freeze(modules.flatMap((m) => (m.settings ?? []).map((row) => ({ ...row, module: m.name })))),
    eventTypes: Object.freeze(modules.flatMap((m) => m.eventTypes ?? [])),
    sessionSources: Object.freeze(modules.flatMap((m) => m.sessionSources ?? [])),
    modules: Object.freeze([...modules]),
    resolvers: Object.freeze(Object.assign({}, ...modules.map((m) => m.resolvers ?? {})) as Record<string, Resolver>),
    keyProofs: Object.freeze(modules.flatMap((m) => m.keyProofs ?? [])),
    recordFields: declaredRecordFields(modules),
    assets: () => new Map(modules.flatMap((m) => [...(m.assets?.() ?? [])])),
  });
}

/**
 * The session-record fields the modules declare; a name two modules declare, or one of the engine's
 * own record fields, stops the boot naming both declarers. createApp checks its modules with it too.
 */
export function declaredRecordFields(modules: readonly FeatureModule[]): readonly DeclaredRecordField[] {
  const claims = new Claims();
  for (const name of ENGINE_RECORD_FIELDS) claims.claim('session-record field', name, 'the engine');
  const fields = modules.flatMap((m) => (m.recordFields ?? []).map((field) => ({ ...field, module: m.name })));
  for (const field of fields) claims.claim('session-record field', field.name, `module ${field.module}`);
  return Object.freeze(fields);
}

function claimAll(claims: Claims, module: FeatureModule): void {
  const owner = `module ${module.name}`;
  claims.claim('module', module.name, owner);
  for (const name of Object.keys(module.plugins ?? {})) claims.claim('plugin', name, owner);
  for (const code of Object.keys(module.errors ?? {})) claims.claim('error code', code, owner);
  for (const row of module.settings ?? []) claims.claim('setting', row.name, owner);
  for (const row of module.eventTypes ?? []) claims.claim('event type', row.type, owner);
  for (const source of module.sessionSources ?? []) claims.claim('session source', source.name, owner);
  for (const view of module.sessionViews ?? []) claims.claim('session view', view.name, owner);
  for (const name of Object.keys(module.resolvers ?? {})) claims.claim('resolver', name, owner);
  for (const proof of module.keyProofs ?? []) claims.claim('key proof', proof.name, owner);
}

/** Who declared each name of each kind; a second declaration is the boot error. */
class Claims {
  private readonly owners = new Map<string, string>();

  claim(kind: string, name: string, owner: string): void {
    const key = `${kind}\u0000${name}`;
    const first = this.owners.get(key);
    if (first) throw new Error(`feature modules: ${kind} "${name}" is declared by ${first} and again by ${owner}`);
    this.owners.set(key, owner);
  }
}
