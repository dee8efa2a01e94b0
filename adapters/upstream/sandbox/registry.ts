// The method registry: name → run(ctx, args). Arguments are bound against the upstream's own
// signature first (names, defaults, TypeError for unknown or missing ones), as Python would.
import type { CallOptions } from '../../../engine/types.js';
import { typeError } from './errors.js';
import { SIGNATURES, VARKW, type ParamDecl } from './methods/signatures.js';
import { ADDED_1_12, EXTENDED_1_12 } from './methods/signatures-1.12.js';
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
  /** The signatures of the aiograpi version the sandbox plays. */
  readonly signatures: Signatures;
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

export type Signatures = Readonly<Record<string, readonly ParamDecl[]>>;

/** The versions of aiograpi the sandbox can play (SOCIALGATE_SANDBOX_VERSION); the first is the default. */
export const SANDBOX_VERSIONS = ['1.0.9', '1.12.13'] as const;
export type SandboxVersion = (typeof SANDBOX_VERSIONS)[number];

/** The signatures of the version the sandbox plays: 1.12 adds methods and keywords to 1.0.9's. */
export function signaturesFor(version: SandboxVersion): Signatures {
  if (version === '1.0.9') return SIGNATURES;
  const extended = Object.fromEntries(Object.entries(EXTENDED_1_12).map(([name, extra]) => [name, [...SIGNATURES[name], ...extra]]));
  return { ...SIGNATURES, ...ADDED_1_12, ...extended };
}

export function bindArgs(method: string, kwargs: Readonly<Record<string, unknown>>, signatures: Signatures = SIGNATURES): Record<string, unknown> {
  const decls = signatures[method] ?? [];
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

/** Merges area tables, refusing a duplicate or a name no version the sandbox plays has. */
export function mergeTables(tables: readonly MethodTable[]): Map<string, MethodDef> {
  const all = new Map<string, MethodDef>();
  for (const table of tables) {
    for (const [name, def] of Object.entries(table)) {
      if (all.has(name)) throw new Error(`sandbox: method ${name} defined twice`);
      if (!(name in SIGNATURES) && !(name in ADDED_1_12)) throw new Error(`sandbox: method ${name} has no upstream signature`);
      all.set(name, def);
    }
  }
  return all;
}

/** The methods one version has: a newer version's are absent (AttributeError, as Python says). */
export function methodsOf(all: ReadonlyMap<string, MethodDef>, signatures: Signatures): Map<string, MethodDef> {
  return new Map([...all].filter(([name]) => name in signatures));
}
