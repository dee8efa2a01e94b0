// A route's documented example request, built from the manifest as /docs prefills it: every
// parameter's example, else its default (a field left empty is not sent), and a sample file for each
// required file field (the page asks the user to pick one). JSON fields travel JSON-encoded, lists
// as repeated fields.
import { sandboxFileBytes } from '../../adapters/upstream/sandbox/index.js';
import type { JsonValue, ParamSpec, RouteSpec } from '../../engine/types.js';

export interface Upload {
  bytes: Buffer;
  type: string;
  name: string;
}
export interface ExampleRequest {
  /** Field → its values as sent, one string per repetition. */
  readonly fields: Record<string, string[]>;
  readonly files: Record<string, Upload[]>;
}

/** Reads first, then creations and changes, then removals; what deletes or rotates what others use runs last. */
export const RUN_LAST = [
  'DELETE /media/comment',
  'PATCH /account/password',
  'DELETE /media',
  'DELETE /story',
  'DELETE /highlight',
  'DELETE /note',
  'DELETE /direct/thread',
  'DELETE /direct/message',
  'PATCH /auth/settings',
  'PATCH /auth/relogin',
];

/** What a creation replaces (a new note replaces demo's note) runs before that creation. */
export const RUN_FIRST = ['DELETE /note'];

export function orderForRun(list: readonly RouteSpec[]): RouteSpec[] {
  const rank = (r: RouteSpec) =>
    RUN_FIRST.includes(r.key) ? -1 : RUN_LAST.includes(r.key) ? 10 + RUN_LAST.indexOf(r.key) : { GET: 0, POST: 1, PATCH: 2, DELETE: 3 }[r.method];
  return [...list].sort((a, b) => rank(a) - rank(b) || a.key.localeCompare(b.key));
}

export function exampleRequest(route: RouteSpec): ExampleRequest {
  const fields: Record<string, string[]> = {};
  const files: Record<string, Upload[]> = {};
  for (const param of route.params) {
    if (param.type === 'file') {
      if (param.required) files[param.name] = sampleUploads(param);
      continue;
    }
    const value = param.example !== undefined ? param.example : param.default;
    if (value === undefined || value === '' || value === null) continue;
    fields[param.name] = asSent(param, value);
  }
  return { fields, files };
}

/** Whether a route's documented example carries everything it needs: required fields and one of each group. */
export function missingFromExample(route: RouteSpec): string[] {
  const { fields, files } = exampleRequest(route);
  const has = (name: string) => name in fields || name in files;
  const missing = route.params.filter((p) => p.required && !has(p.name)).map((p) => p.name);
  for (const group of route.constraints) {
    if (group.kind === 'at_most_one') continue;
    if (!group.params.some(has)) missing.push(`one of ${group.params.join(', ')}`);
  }
  return missing;
}

function asSent(param: ParamSpec, value: JsonValue): string[] {
  const one = (v: JsonValue) => (param.type === 'json' || (typeof v === 'object' && v !== null) ? JSON.stringify(v) : String(v));
  return param.repeated && Array.isArray(value) ? value.map(one) : [one(value)];
}

const SAMPLES = {
  image: { bytes: () => sandboxFileBytes('jpeg', 'upload'), type: 'image/jpeg', name: 'photo.jpg' },
  video: { bytes: () => sandboxFileBytes('mp4', 'upload'), type: 'video/mp4', name: 'clip.mp4' },
  audio: { bytes: () => sandboxFileBytes('mp3', 'upload'), type: 'audio/mpeg', name: 'voice.mp3' },
};

function sampleUploads(param: ParamSpec): Upload[] {
  const kind = param.format === 'video' ? 'video' : param.format === 'audio' ? 'audio' : 'image';
  const one = (): Upload => ({ bytes: SAMPLES[kind].bytes(), type: SAMPLES[kind].type, name: SAMPLES[kind].name });
  return param.repeated ? [one(), one()] : [one()];
}

/** The fetch init of the example request as the OpenAPI document places it: a query string for GET and DELETE, else a form (multipart with files). */
export function exampleFetch(route: RouteSpec, base: string, session?: string, overrides: Record<string, string[]> = {}): { url: URL; init: RequestInit } {
  const { files, fields: documented } = exampleRequest(route);
  // A test may change fields of the example (a caption of its own, another text).
  const fields = { ...documented, ...overrides };
  const url = new URL(route.path, base);
  const headers: Record<string, string> = session ? { 'x-session-id': session } : {};
  if (route.method === 'GET' || route.method === 'DELETE') {
    for (const [key, values] of Object.entries(fields)) for (const v of values) url.searchParams.append(key, v);
    return { url, init: { method: route.method, headers } };
  }
  if (Object.keys(files).length) {
    const form = new FormData();
    for (const [key, values] of Object.entries(fields)) for (const v of values) form.append(key, v);
    for (const [key, list] of Object.entries(files)) for (const f of list) form.append(key, new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
    return { url, init: { method: route.method, headers, body: form } };
  }
  const form = new URLSearchParams();
  for (const [key, values] of Object.entries(fields)) for (const v of values) form.append(key, v);
  return { url, init: { method: route.method, headers, body: form } };
}
