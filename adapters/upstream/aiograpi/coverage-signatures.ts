// The audit's signature check: every keyword the manifest (and the plugins) pass a method must
// still be one of its parameters in the installed library, and the methods the manifest uses whose
// parameters differ from the spec's aiograpi (the shipped 1.0.9 list) are named. Pure functions.
import { compareVersions, VERSION } from '../../../engine/versions.js';
import type { MethodRecord } from './protocol.js';

/** Keywords one route passes: upstream method → keyword names. */
export type KeywordUse = Readonly<Record<string, readonly string[]>>;

export interface MissingKeyword {
  readonly method: string;
  readonly keyword: string;
  /** Routes that pass it ("POST /photo/upload"). */
  readonly routes: readonly string[];
}

export interface SignatureChange {
  readonly method: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** "name: old → new" for parameters whose default (or requiredness) changed. */
  readonly defaults: readonly string[];
}

interface RouteKeywords {
  readonly method: string;
  readonly path: string;
  readonly keywords?: KeywordUse;
  /** Keywords of parameters a newer library version added (manifest `since`): keyword → version. */
  readonly since?: Readonly<Record<string, string>>;
}

/**
 * Keywords a method lacks; a method taking **kwargs accepts any, and unknown methods are reported
 * elsewhere. A keyword the manifest marks as added by a version newer than `version` is expected to
 * be missing (the engine refuses it by name on that library).
 */
export function missingKeywords(methods: readonly MethodRecord[], routes: readonly RouteKeywords[], version = ''): MissingKeyword[] {
  const byName = new Map(methods.map((m) => [m.name, m]));
  const found = new Map<string, { method: string; keyword: string; routes: string[] }>();
  for (const route of routes) {
    for (const [name, keywords] of Object.entries(route.keywords ?? {})) {
      const method = byName.get(name);
      if (!method || method.varkw) continue;
      const params = new Set(method.params.map((p) => p.name));
      for (const keyword of keywords) {
        if (params.has(keyword) || newerThan(route.since?.[keyword], version)) continue;
        const key = `${name}(${keyword})`;
        const entry = found.get(key) ?? { method: name, keyword, routes: [] };
        entry.routes.push(`${route.method} ${route.path}`);
        found.set(key, entry);
      }
    }
  }
  return [...found.values()].sort((a, b) => a.method.localeCompare(b.method) || a.keyword.localeCompare(b.keyword));
}

export function newerThan(since: string | undefined, version: string): boolean {
  return since !== undefined && VERSION.test(version) && compareVersions(since, version) > 0;
}

/** The used methods whose parameters differ between the baseline list and the installed one. */
export function signatureChanges(baseline: readonly MethodRecord[], installed: readonly MethodRecord[], used: ReadonlySet<string>): SignatureChange[] {
  const before = new Map(baseline.map((m) => [m.name, m]));
  const changes: SignatureChange[] = [];
  for (const method of [...installed].sort((a, b) => a.name.localeCompare(b.name))) {
    const old = before.get(method.name);
    if (!old || !used.has(method.name)) continue;
    const change = compare(old, method);
    if (change.added.length || change.removed.length || change.defaults.length) changes.push(change);
  }
  return changes;
}

function compare(old: MethodRecord, now: MethodRecord): SignatureChange {
  const oldParams = new Map(old.params.map((p) => [p.name, p]));
  const newParams = new Map(now.params.map((p) => [p.name, p]));
  const defaults: string[] = [];
  for (const [name, p] of newParams) {
    const q = oldParams.get(name);
    if (q && defaultOf(q) !== defaultOf(p)) defaults.push(`${name}: ${defaultOf(q)} → ${defaultOf(p)}`);
  }
  return {
    method: now.name,
    added: [...newParams.keys()].filter((n) => !oldParams.has(n)),
    removed: [...oldParams.keys()].filter((n) => !newParams.has(n)),
    defaults,
  };
}

const defaultOf = (p: MethodRecord['params'][number]): string => (p.required ? 'required' : (p.default ?? 'optional'));
