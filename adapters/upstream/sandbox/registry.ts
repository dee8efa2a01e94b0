// The method registry: name → run(ctx, args). Arguments are bound against the upstream's own
// signature first (names, defaults, TypeError for unknown or missing ones), as Python would.
import type { CallOptions } from '../../../engine/types.js';
import { typeError } from './errors.js';
import { SIGNATURES, VARKW } from './methods/signatures.js';
import type { UserRec, World } from './world/types.js';

export type Args = Readonly<Record<string, unknown>>;

/** What one client keeps between calls: who it is logged in as, and its settings export. */
export interface ClientState {
  pk: string | null;
  sessionid: string | null;
  uuids: Record<string, string>;
  deviceSettings: Record<string, unknown>;
  userAgent: string;
  locale: string;
  country: string;
  countryCode: number;
  timezoneOffset: number;
  proxy: string;
  lastLogin: number | null;
  mid: string;
}

export interface SandboxCore {
  readonly world: World;
  readonly now: () => number;
  /** Notes that an account called (the live world's happenings go to accounts in use). */
  used(pk: string): void;
  sessionFor(pk: string): string;
  verifySession(sessionid: string): string | null;
}

export interface Ctx {
  readonly core: SandboxCore;
  readonly world: World;
  readonly state: ClientState;
  readonly opts: CallOptions;
  /** The logged-in account; raises LoginRequired for a fresh client. */
  me(): UserRec;
  /** Epoch seconds. */
  nowSec(): number;
}

export interface MethodDef {
  /** Works without a login (client-local helpers and the login flow). */
  readonly open?: boolean;
  /** Never touches the platform: no throttling, no injected faults. */
  readonly local?: boolean;
  run(ctx: Ctx, args: Args): unknown;
}
export type MethodTable = Readonly<Record<string, MethodDef>>;

export function bindArgs(method: string, kwargs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const decls = SIGNATURES[method] ?? [];
  const out: Record<string, unknown> = {};
  for (const decl of decls) {
    const name = typeof decl === 'string' ? decl : decl[0];
    const given = kwargs[name];
    if (given !== undefined) out[name] = given;
    else if (typeof decl === 'string') typeError(`${method}() missing 1 required positional argument: '${name}'`);
    else out[name] = decl[1];
  }
  for (const key of Object.keys(kwargs)) {
    if (key in out || kwargs[key] === undefined) continue;
    if (!VARKW.has(method)) typeError(`${method}() got an unexpected keyword argument '${key}'`);
    out[key] = kwargs[key];
  }
  return out;
}

/** Merges area tables, refusing a duplicate or a name the upstream does not have. */
export function mergeTables(tables: readonly MethodTable[]): Map<string, MethodDef> {
  const all = new Map<string, MethodDef>();
  for (const table of tables) {
    for (const [name, def] of Object.entries(table)) {
      if (all.has(name)) throw new Error(`sandbox: method ${name} defined twice`);
      if (!(name in SIGNATURES)) throw new Error(`sandbox: method ${name} has no upstream signature`);
      all.set(name, def);
    }
  }
  return all;
}
