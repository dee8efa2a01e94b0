// The session record's fields: the engine's own, and those feature modules declare (FeatureModule.
// recordFields, merged and checked at boot by engine/modules.ts). The stores keep a record whole, as
// JSON, so a declared field is kept as the engine's are. A field nobody declares is neither kept
// silently nor lost silently: a write naming one is refused (a module forgot to declare it), and a
// stored record carrying one (written by a build with a module this one lacks) is read and kept as
// it is, so that module's data survives a rollback, with a warning naming the field once.
import type { Logger, RecordField, SessionRecord, SessionStateChange } from './types.js';
import type { JsonValue } from './types/route.js';

/** The engine's own fields of a session record: no module may declare them. */
export const ENGINE_RECORD_FIELDS = [
  'id',
  'account',
  'settings',
  'proxy',
  'locale',
  'timezone',
  'state',
  'throttledUntil',
  'createdAt',
  'lastUsedAt',
  'label',
] as const satisfies readonly (keyof SessionRecord)[];

/** A record field with the module that declares it. */
export interface DeclaredRecordField extends RecordField {
  readonly module: string;
}

export class RecordFields {
  private readonly known: ReadonlySet<string>;
  private readonly moving: readonly RecordField[];
  private readonly unchanged: Readonly<Record<string, JsonValue>>;
  private readonly warned = new Set<string>();

  constructor(
    readonly declared: readonly DeclaredRecordField[] = [],
    private readonly log?: Logger,
  ) {
    this.known = new Set<string>([...ENGINE_RECORD_FIELDS, ...declared.map((field) => field.name)]);
    this.moving = declared.filter((field) => field.changed);
    this.unchanged = Object.freeze(Object.assign({}, ...declared.map((field) => field.unchanged ?? {})) as Record<string, JsonValue>);
  }

  /** The change when the state, its throttle deadline or a declared field moved; undefined for any other update. */
  stateChange(before: SessionRecord, after: SessionRecord, reason: string): SessionStateChange | undefined {
    const moves = this.moving.flatMap((field) => field.changed?.(before, after) ?? []);
    if (!moves.length && before.state === after.state && (after.state !== 'throttled' || before.throttledUntil === after.throttledUntil)) return undefined;
    const throttledUntil = after.state === 'throttled' ? after.throttledUntil : undefined;
    const detail = moves.length ? Object.assign({ ...this.unchanged }, ...moves.map((move) => move.data)) : this.unchanged;
    return { record: after, from: before.state, to: after.state, reason, throttledUntil, detail, detailId: moves.flatMap((move) => move.id) };
  }

  /** The declared fields that stand for the account on the platform (RecordField.carried), as `record` holds them. */
  carriedFrom(record: SessionRecord): Partial<SessionRecord> {
    const carried: Record<string, unknown> = {};
    for (const field of this.declared)
      if (field.carried && field.name in record) carried[field.name] = (record as unknown as Record<string, unknown>)[field.name];
    return carried as Partial<SessionRecord>;
  }

  /** Refuses a record or patch naming a field no module declares (its data would be kept with no owner). */
  checkWrite(fields: object): void {
    const unknown = Object.keys(fields).find((name) => !this.known.has(name));
    if (unknown !== undefined) throw new Error(`session record: field "${unknown}" is declared by no feature module (FeatureModule.recordFields)`);
  }

  /** A stored record's undeclared fields are kept as read; each is named in a warning once per process. */
  noteRead(record: SessionRecord): void {
    for (const name of Object.keys(record)) {
      if (this.known.has(name) || this.warned.has(name)) continue;
      this.warned.add(name);
      this.log?.warn('session record field kept though no feature module declares it', { field: name });
    }
  }
}
