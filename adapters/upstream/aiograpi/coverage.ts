// The coverage audit's classification: every public upstream method is exposed (a route reaches it),
// a duplicate (a transport or paging variant of an exposed method), internal (a low-level helper
// that is not an API operation) or a candidate (could be a route; is not yet). Pure functions.
import { missingKeywords, newerThan, signatureChanges, type KeywordUse, type MissingKeyword, type SignatureChange } from './coverage-signatures.js';
import type { MethodRecord } from './protocol.js';

export type MethodClass = 'exposed' | 'duplicate' | 'internal' | 'candidate';
export const CLASSES: readonly MethodClass[] = ['exposed', 'duplicate', 'internal', 'candidate'];

export interface AuditRoute {
  readonly method: string;
  readonly path: string;
  readonly upstream: readonly string[];
  /** The keywords the route's calls and plugin pass each method (for the signature check). */
  readonly keywords?: KeywordUse;
  /** Keywords of parameters a newer library added (manifest `since`): keyword → version. */
  readonly since?: Readonly<Record<string, string>>;
  /** The library version the route itself needs (a route-level manifest `since`). */
  readonly needs?: string;
}

/** A route for what a newer library added, with the methods the audited library lacks. */
export interface NewerRoute {
  readonly route: string;
  readonly since: string;
  /** Its methods the audited library does not have (empty once it is new enough). */
  readonly absent: readonly string[];
}

export interface ClassifiedMethod {
  readonly name: string;
  readonly area: string;
  readonly class: MethodClass;
  /** Routes reaching an exposed method ("GET /user/info"). */
  readonly routes: readonly string[];
  /** For a duplicate: the exposed methods it is a variant of. */
  readonly variantOf?: readonly string[];
  readonly signature?: string;
}

export interface AreaCounts {
  readonly area: string;
  readonly total: number;
  readonly exposed: number;
  readonly duplicate: number;
  readonly internal: number;
  readonly candidate: number;
}

export interface AuditReport {
  readonly library: string;
  readonly version: string;
  readonly upstream_total: number;
  readonly exposed: number;
  readonly duplicate: number;
  readonly internal: number;
  readonly candidate: number;
  readonly areas: readonly AreaCounts[];
  readonly routes: readonly AuditRoute[];
  /** Names the manifest (or a plugin) uses that the upstream does not have: the audit fails on any. */
  readonly unknown: readonly string[];
  /** Routes for what a newer library added (manifest `since`): not unknown names, refused by the engine on an older library. */
  readonly newer: readonly NewerRoute[];
  /** Keywords the manifest (or a plugin) passes that the method no longer takes: the audit fails on any. */
  readonly missing_keywords: readonly MissingKeyword[];
  /** Methods the manifest uses whose parameters differ from the baseline list (the spec's aiograpi). */
  readonly signature_changes: readonly SignatureChange[];
  readonly methods: readonly ClassifiedMethod[];
}

/** Name parts that mark the same operation over another transport, API version or paging style. */
export const VARIANT_TOKENS: ReadonlySet<string> = new Set(['v1', 'v2', 'gql', 'a1', 'chunk', 'paginated', 'graphql']);

/** Upstream areas (defining files) that hold only plumbing: requests, login internals, sign-up, challenges. */
export const INTERNAL_AREAS: ReadonlySet<string> = new Set(['private', 'public', 'graphql', 'bloks', 'signup', 'challenge', 'password', 'auth']);

/** Names of helpers anywhere: setters and builders of client state, raw requests, upload steps, handlers. */
export const INTERNAL_NAMES: readonly RegExp[] = [
  /^(set|with|generate|gen|dump|load)_/, // client configuration and payload builders
  /^private_graphql_/, // raw GraphQL queries behind public methods
  /_(handler|request|rupload)$/, // callbacks, raw requests, upload transport steps
  /_configure(_|$)/, // the configure step of an upload, run by the upload methods
  /_extra_data$/, // payload builders for uploads
  /(^|_)delay$/, // pacing helpers
  /^request_log$/,
];

export function canonicalName(name: string): string {
  return name
    .split('_')
    .filter((part) => !VARIANT_TOKENS.has(part))
    .join('_');
}

export function isInternal(method: Pick<MethodRecord, 'name' | 'area'>): boolean {
  return INTERNAL_AREAS.has(method.area) || INTERNAL_NAMES.some((pattern) => pattern.test(method.name));
}

type MethodList = { readonly library?: string; readonly version?: string; readonly methods: readonly MethodRecord[] };

export function classify(doc: MethodList, routes: readonly AuditRoute[], baseline?: MethodList): AuditReport {
  const routesOf = routesByMethod(routes);
  const exposedByCanon = new Map<string, string[]>();
  for (const name of routesOf.keys()) exposedByCanon.set(canonicalName(name), [...(exposedByCanon.get(canonicalName(name)) ?? []), name]);
  const methods = [...doc.methods].sort((a, b) => a.name.localeCompare(b.name)).map((m): ClassifiedMethod => classifyOne(m, routesOf, exposedByCanon));
  const known = new Set(doc.methods.map((m) => m.name));
  const version = doc.version ?? 'unknown';
  const awaited = (route: AuditRoute): boolean => newerThan(route.needs, version);
  // A name only routes for a newer library reach is expected to be missing from this one.
  const expected = (name: string): boolean => routes.filter((r) => r.upstream.includes(name)).every(awaited);
  const count = (cls: MethodClass, list = methods): number => list.filter((m) => m.class === cls).length;
  return {
    library: doc.library ?? 'aiograpi',
    version: doc.version ?? 'unknown',
    upstream_total: methods.length,
    exposed: count('exposed'),
    duplicate: count('duplicate'),
    internal: count('internal'),
    candidate: count('candidate'),
    areas: areaCounts(methods),
    routes: routes.map((r) => ({
      method: r.method,
      path: r.path,
      upstream: [...r.upstream].sort(),
      ...(r.keywords ? { keywords: r.keywords } : {}),
      ...(r.needs ? { needs: r.needs } : {}),
    })),
    unknown: [...routesOf.keys()].filter((name) => !known.has(name) && !expected(name)).sort(),
    newer: routes
      .filter((r) => r.needs)
      .map((r) => ({ route: `${r.method} ${r.path}`, since: r.needs!, absent: r.upstream.filter((n) => !known.has(n)).sort() })),
    missing_keywords: missingKeywords(doc.methods, routes, doc.version),
    signature_changes: baseline ? signatureChanges(baseline.methods, doc.methods, new Set(routesOf.keys())) : [],
    methods,
  };
}

function classifyOne(m: MethodRecord, routesOf: ReadonlyMap<string, string[]>, exposedByCanon: ReadonlyMap<string, string[]>): ClassifiedMethod {
  const base = { name: m.name, area: m.area, ...(m.signature ? { signature: m.signature } : {}) };
  const routes = routesOf.get(m.name);
  if (routes) return { ...base, class: 'exposed', routes };
  const variantOf = exposedByCanon.get(canonicalName(m.name));
  if (variantOf) return { ...base, class: 'duplicate', routes: [], variantOf: [...variantOf].sort() };
  return { ...base, class: isInternal(m) ? 'internal' : 'candidate', routes: [] };
}

function routesByMethod(routes: readonly AuditRoute[]): Map<string, string[]> {
  const byMethod = new Map<string, string[]>();
  for (const route of routes) {
    for (const name of route.upstream) byMethod.set(name, [...(byMethod.get(name) ?? []), `${route.method} ${route.path}`]);
  }
  return byMethod;
}

function areaCounts(methods: readonly ClassifiedMethod[]): AreaCounts[] {
  const areas = [...new Set(methods.map((m) => m.area))].sort();
  return areas.map((area) => {
    const inArea = methods.filter((m) => m.area === area);
    const of = (cls: MethodClass): number => inArea.filter((m) => m.class === cls).length;
    return { area, total: inArea.length, exposed: of('exposed'), duplicate: of('duplicate'), internal: of('internal'), candidate: of('candidate') };
  });
}
