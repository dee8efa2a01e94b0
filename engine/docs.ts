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

/**
 * One handler per Swagger UI asset, by its exact path, for the app's path index (so the asset
 * routes cost nothing on API requests). Each file is read on first request and kept in memory.
 */
export function docsAssets(): Map<string, Koa.Middleware> {
  const dir = swaggerDir();
  const handlers = new Map<string, Koa.Middleware>();
  for (const [name, type] of Object.entries(ASSETS)) {
    let bytes: Promise<Buffer> | undefined;
    handlers.set(DOCS_ASSET_PREFIX + name, async (ctx, next) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      bytes ??= readFile(join(dir, name));
      ctx.state.route = 'GET /docs/assets';
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = await bytes;
    });
  }
  return handlers;
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
