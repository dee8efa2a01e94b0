// Swagger UI's assets, served from the swagger-ui-dist package on this machine (no CDN: /docs
// works offline). Each asset is read once, on first request, and kept in memory.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Koa from 'koa';
import { createRequire } from 'node:module';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
export const DOCS_ASSET_PREFIX = '/docs/assets/';

export function staticDocs(): Koa.Middleware {
  const cache = new Map<string, Promise<Buffer>>();
  const dir = swaggerDir();
  return async (ctx, next) => {
    if (!ctx.path.startsWith(DOCS_ASSET_PREFIX) || ctx.method !== 'GET') return next();
    const name = ctx.path.slice(DOCS_ASSET_PREFIX.length);
    const type = ASSETS[name];
    if (!type) return next();
    if (!cache.has(name)) cache.set(name, readFile(join(dir, name)));
    ctx.state.route = 'GET /docs/assets';
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await cache.get(name)!;
  };
}

function swaggerDir(): string {
  const require = createRequire(import.meta.url);
  // absolute-path.js alone: the package's index also loads the whole UI bundle into this process.
  return (require('swagger-ui-dist/absolute-path.js') as () => string)();
}

export function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} API</title>
<link rel="stylesheet" href="${DOCS_ASSET_PREFIX}swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_ASSET_PREFIX}favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_ASSET_PREFIX}swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSET_PREFIX}swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout'
});
</script>
</body>
</html>
`;
}
