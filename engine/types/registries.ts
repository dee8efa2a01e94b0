import type { JsonSchema, ParamSpec, ResolveSpec, ResultBody, ResultSpec } from './route.js';

// -- Registries ------------------------------------------------------------------------------

/** A coercer turns the raw string(s) of one parameter into its typed value, or throws CoercionError. */
export type Coercer = (raw: readonly string[], param: ParamSpec) => unknown;

export class CoercionError extends Error {}

/** Input bag of one request: coerced parameters, uploaded files, and call results by `as`. */
export type InputBag = Record<string, unknown>;

export interface UploadedFile {
  readonly field: string;
  readonly path: string;
  readonly originalName: string;
  readonly mimeType: string;
  readonly size: number;
}

/** What a resolver may use: the session's upstream client and a shared cache. */
export interface ResolveContext {
  call(method: string, kwargs: Readonly<Record<string, unknown>>): Promise<unknown>;
  readonly cache: ResolverCache;
  /** Cache key scope (the session's account), so one account's view never answers another's. */
  readonly scope: string;
}
export interface ResolverCache {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}
export interface Resolver {
  /** Upstream methods the resolver may call (for the audit and the sandbox completeness test). */
  readonly uses: readonly string[];
  /** Synchronous when it needs nothing from outside (no promise on the hot path). */
  resolve(input: InputBag, spec: ResolveSpec, ctx: ResolveContext): Promise<void> | void;
}

/** A file the engine streams to the client and then deletes. */
export interface FileResult {
  readonly kind: 'file';
  readonly path: string;
  readonly filename: string;
  readonly contentType: string;
  /** Remove the file (and its private folder) once streamed. */
  readonly cleanup?: () => Promise<void>;
}
/** A stream the engine pipes to the client (a zip of several files; an event stream, with no filename). */
export interface StreamResult {
  readonly kind: 'stream';
  readonly stream: NodeJS.ReadableStream;
  /** Sent as an attachment under this name; none for a stream the page reads as it comes. */
  readonly filename?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly contentType: string;
  readonly length?: number;
  readonly cleanup?: () => Promise<void>;
}

/** A JSON body with cookies to set (the console's key cookie); the engine writes both. */
export interface ReplyResult {
  readonly kind: 'reply';
  readonly body: unknown;
  readonly cookies: readonly { readonly name: string; readonly value: string; readonly maxAgeSeconds: number }[];
}

/** A JSON body serialised ahead of time, written as it is (a large document that never changes). */
export interface JsonText {
  readonly kind: 'json';
  readonly text: string;
  /** For a large document served often (/openapi.json): its ETag, and its bytes compressed once per encoding. */
  readonly etag?: string;
  compressed?(encoding: 'br' | 'gzip'): Buffer;
}

/** What a file shape needs to turn the upstream's paths into what the responder sends (bound per route at boot). */
export interface FileMaker {
  file(path: string): FileResult;
  /** Several files as one zip stream, named after the route. */
  zip(paths: readonly string[]): StreamResult;
}

/** A shaper turns the upstream result into the response body. Pure for data; file shapes use `files`. */
export type Shaper = (value: unknown, spec: ResultSpec, bag: InputBag, files: FileMaker) => unknown;
export interface ShapeEntry {
  readonly shape: Shaper;
  /** Default response schema when the manifest gives none (documentation). */
  readonly schema: (spec: { readonly items?: JsonSchema; readonly schema?: JsonSchema }) => JsonSchema;
  /** How the responder writes the body; JSON when unset. */
  readonly body?: ResultBody;
  /** The content type written and documented; application/json when unset (the manifest's `content_type` wins). */
  readonly contentType?: string;
  /**
   * A page of a longer list: the parameter the next page's cursor goes back in and the result field
   * that holds it. Its GET routes are job kinds, and their MCP tools point to the jobs for the whole list.
   */
  readonly paging?: { readonly param: string; readonly field: string };
}
