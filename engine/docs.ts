// Swagger UI's assets, served from the swagger-ui-dist package on this machine (no CDN: /docs
// works offline). Each asset is read once, on first request, and kept in memory.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import type Koa from 'koa';
import type { JsonText } from './types.js';
import { sendTagged, type TaggedBody } from './pipeline/respond.js';
import { createRequire } from 'node:module';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
export const DOCS_ASSET_PREFIX = '/docs/assets/';

/**
 * One handler per Swagger UI asset, by its exact path, for the app's path index (so the asset
 * routes cost nothing on API requests). Each file is read on first request and kept in memory;
 * text assets go compressed (the bundle is 1.7 MB raw, 0.4 MB in brotli) and revalidate by ETag
 * once a day's cache has run out.
 */
export function docsAssets(): Map<string, Koa.Middleware> {
  const dir = swaggerDir();
  const handlers = new Map<string, Koa.Middleware>();
  for (const [name, type] of Object.entries(ASSETS)) {
    let asset: Promise<TaggedBody> | undefined;
    handlers.set(DOCS_ASSET_PREFIX + name, async (ctx, next) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      asset ??= readFile(join(dir, name)).then((bytes) => loadedAsset(bytes, !type.startsWith('image/')));
      ctx.state.route = 'GET /docs/assets';
      ctx.type = type;
      sendTagged(ctx, await asset, 'public, max-age=86400');
    });
  }
  return handlers;
}

function loadedAsset(bytes: Buffer, compressible: boolean): TaggedBody {
  return { body: bytes, etag: etagOf(bytes), ...(compressible ? { compressed: compressedOnce(bytes) } : {}) };
}

const etagOf = (bytes: Buffer | string): string => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;

/** Each compressed form made on its first request and kept (brotli at quality 5: a tenth of the bytes in tens of milliseconds). */
function compressedOnce(input: Buffer | string): (encoding: 'br' | 'gzip') => Buffer {
  const cache = new Map<'br' | 'gzip', Buffer>();
  const compress = (encoding: 'br' | 'gzip'): Buffer =>
    encoding === 'br' ? brotliCompressSync(input, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }) : gzipSync(input, { level: 6 });
  return (encoding) => cache.get(encoding) ?? cache.set(encoding, compress(encoding)).get(encoding)!;
}

/** The OpenAPI document as served: serialised and tagged once at boot, compressed on first request. */
export function servedDocument(document: unknown): JsonText {
  const text = JSON.stringify(document);
  return Object.freeze({ kind: 'json' as const, text, etag: etagOf(text), compressed: compressedOnce(text) });
}

function swaggerDir(): string {
  const require = createRequire(import.meta.url);
  // absolute-path.js alone: the package's index also loads the whole UI bundle into this process.
  return (require('swagger-ui-dist/absolute-path.js') as () => string)();
}

/**
 * The explorer page. Swagger UI's request builder parses every form value as JSON (a long id loses
 * digits) and joins lists with commas, so the page keeps the values as typed when Execute is
 * pressed and its request interceptor writes the form body from them: every digit kept, JSON text
 * areas sent as typed, a list as the field repeated. Tags start collapsed under a filter box,
 * so the landing screen is the three steps of the description and the Authorize button; the two
 * tags those steps use (Auth, User) open at first. What is typed into Authorize (a session ID, the
 * API key) is kept for the tab only (TabAuthorization).
 */
export function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} API</title>
<link rel="preload" href="/openapi.json" as="fetch" crossorigin>
<link rel="stylesheet" href="${DOCS_ASSET_PREFIX}swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_ASSET_PREFIX}favicon-32x32.png">
<style>.swagger-ui .info { margin: 24px 0 12px } .swagger-ui .info .markdown ol { margin: 6px 0 }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_ASSET_PREFIX}swagger-ui-bundle.js"></script>
<script>
${PAGE_PLUGINS}
window.ui = SwaggerUIBundle({
  url: '/openapi.json', dom_id: '#swagger-ui', layout: 'BaseLayout', deepLinking: true, persistAuthorization: false,
  docExpansion: 'none', filter: true, tryItOutEnabled: true, defaultModelsExpandDepth: -1, displayRequestDuration: true, validatorUrl: null,
  plugins: [JsonFirst, LocalRefs, OwnExamplesOnly, EmptyNotSent, FormAsTyped, TabAuthorization], requestInterceptor: sendFormAsTyped,
  onComplete: function () { FIRST_TAGS.forEach(function (tag) { window.ui.layoutActions.show(['operations-tag', tag], true); }); }
});
</script>
</body>
</html>
`;
}

/**
 * Browser code of the page, as Swagger UI plugins: the document read and resolved quickly, form
 * fields that start with the manifest's examples only, and a form's values sent as typed.
 */
const PAGE_PLUGINS = String.raw`
// Swagger UI reads the document as YAML (JSON is YAML too), a tenth of a second for what JSON.parse
// reads in a few milliseconds; anything that is not JSON still goes to the YAML reader.
function JsonFirst() {
  return { statePlugins: { spec: { wrapActions: { parseToJson: function (parse, system) {
    return function (text) {
      var json;
      try { json = JSON.parse(text || system.specSelectors.specStr()); } catch (error) { return parse(text); }
      system.errActions.clear({ source: 'parser' });
      return system.specActions.updateJsonSpec(json);
    };
  } } } } };
}
// Swagger UI fills each form field that has no example of its own with a sample of its type
// ("string", the minimum, a random match of the pattern) and sends it: the login form sent a proxy
// "string" and a made-up locale. Such a field starts empty here, so a form sends what its reader
// typed and the manifest's examples; fields with an example or a default keep them.
function OwnExamplesOnly(system) {
  return { wrapComponents: { RequestBody: function (Original) {
    return function (props) {
      var fn = Object.assign({}, props.fn, { getSampleSchema: ownSampleOnly(props.fn) });
      return system.React.createElement(Original, Object.assign({}, props, { fn: fn }));
    };
  } } };
}
function ownSampleOnly(fn) {
  return function (schema, contentType) {
    // A form field's sample is asked for without a content type; whole bodies name theirs.
    if (contentType !== false || hasOwnSample(schema)) return fn.getSampleSchema.apply(null, arguments);
    return fn.getSchemaObjectType(schema) === 'array' ? [] : '';
  };
}
function hasOwnSample(schema) {
  var plain = schema && schema.toJS ? schema.toJS() : schema || {};
  return plain.examples !== undefined || plain.example !== undefined || plain.default !== undefined;
}
// Swagger UI's "Send empty value" box starts ticked on every optional form field, so the empty
// fields went too (an empty timezone is no integer: 422). Unticked at first; a reader who wants one sent ticks it.
function EmptyNotSent(system) {
  return { wrapComponents: { ParameterIncludeEmpty: function (Original) {
    return function (props) {
      var options = Object.assign({}, props.isIncludedOptions, { defaultValue: false });
      return system.React.createElement(Original, Object.assign({}, props, { isIncludedOptions: options }));
    };
  } } };
}
// Swagger UI resolves an OpenAPI 3.1 document's references with ApiDOM, which converts the whole
// document (600 kB, 4000 references) for every part it asks for: 1.4 s of frozen page before the
// first operation shows, and again for each operation opened. Every reference of this document is
// local (#/components/...), so the page resolves the part asked for by JSON pointer instead.
function LocalRefs() {
  return { fn: { resolveSubtree: function (spec, path) {
    return Promise.resolve({ errors: [], spec: resolveLocal(spec, at(spec, path), []) });
  } } };
}
function at(root, path) {
  return path.reduce(function (node, key) { return node === undefined || node === null ? undefined : node[key]; }, root);
}
function resolveLocal(root, node, refs) {
  if (Array.isArray(node)) return node.map(function (one) { return resolveLocal(root, one, refs); });
  if (!node || typeof node !== 'object') return node;
  var ref = node.$ref;
  if (typeof ref === 'string' && ref.charAt(0) === '#') {
    var target = at(root, ref.slice(2).split('/').map(unescapePointer));
    // A schema that contains itself stays a reference the second time (Swagger UI shows its name).
    if (target === undefined || refs.indexOf(ref) >= 0) return node;
    return Object.assign({}, resolveLocal(root, target, refs.concat(ref)), withoutRef(node), { $$ref: ref });
  }
  var copy = {};
  Object.keys(node).forEach(function (key) { copy[key] = resolveLocal(root, node[key], refs); });
  return copy;
}
function withoutRef(node) {
  var rest = Object.assign({}, node);
  delete rest.$ref;
  return rest;
}
function unescapePointer(part) { return decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'); }

// Swagger UI's persistAuthorization keeps what Authorize holds in localStorage, for every tab and
// after the browser closes; a session ID is a password. It is kept in sessionStorage instead: a
// reload of the tab keeps it, closing the tab (or Logout in the Authorize dialog) forgets it.
var TAB_KEY = 'socialgate.authorized';
function TabAuthorization() {
  var keep = function (original, system) {
    return function () {
      var result = original.apply(null, arguments);
      try { sessionStorage.setItem(TAB_KEY, JSON.stringify(system.authSelectors.authorized().toJS())); } catch (error) { /* storage off: not kept */ }
      return result;
    };
  };
  var restore = function (original, system) {
    return function () {
      var result = original.apply(null, arguments);
      var kept = null;
      try { kept = sessionStorage.getItem(TAB_KEY); } catch (error) { /* storage off */ }
      if (kept) system.authActions.restoreAuthorization({ authorized: JSON.parse(kept) });
      return result;
    };
  };
  return { statePlugins: {
    auth: { wrapActions: { authorize: keep, logout: keep } },
    configs: { wrapActions: { loaded: restore } },
  } };
}

// Only the tags of the three steps open at first: rendering all ~280 operations takes seconds.
var FIRST_TAGS = ['Auth', 'User'];
var typedForm = null;
var FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];
function FormAsTyped() {
  return { statePlugins: { spec: { wrapActions: { executeRequest: function (execute, system) {
    return function (req) {
      var type = system.oas3Selectors.requestContentType(req.pathName, req.method);
      var values = system.oas3Selectors.requestBodyValue(req.pathName, req.method);
      var included = system.oas3Selectors.requestBodyInclusionSetting(req.pathName, req.method);
      typedForm = FORM_TYPES.indexOf(type) >= 0 && values && values.entrySeq ? { type: type, fields: typedFields(values, included) } : null;
      return execute(req);
    };
  } } } } };
}
function typedFields(values, included) {
  var fields = [];
  values.entrySeq().forEach(function (entry) {
    var name = entry[0], value = entry[1] && entry[1].get ? entry[1].get('value') : entry[1];
    var list = value && value.toArray ? value.toArray() : Array.isArray(value) ? value : [value];
    list.forEach(function (one) {
      if (one === undefined || one === null || (one === '' && !(included && included.get(name)))) return;
      fields.push([name, typeof one === 'object' && !(one instanceof Blob) ? JSON.stringify(one) : one]);
    });
  });
  return fields;
}
function sendFormAsTyped(request) {
  var form = typedForm;
  typedForm = null;
  if (!form || request.body === undefined) return request;
  if (form.type === 'multipart/form-data') {
    var data = new FormData();
    form.fields.forEach(function (f) { data.append(f[0], f[1]); });
    request.body = data;
  } else {
    var params = new URLSearchParams();
    form.fields.forEach(function (f) { params.append(f[0], String(f[1])); });
    request.body = params.toString();
  }
  return request;
}
`;
