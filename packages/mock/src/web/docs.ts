/**
 * `/docs/`: the interactive API reference, served entirely by the mock (no CDN, no font service,
 * no request off the mock's origin): Swagger UI (the `swagger-ui-dist` package) rendering
 * packages/contract/spec/openapi.yaml (paths and webhooks) and packages/contract/spec/mock-control.yaml, one selectable definition each.
 * "Try it out" sends its requests to the mock itself: both documents are served with a relative
 * `servers` entry, which the page resolves against the mock's own origin, whatever host, port or
 * proxy it was reached through.
 *
 * Why Swagger UI and not Scalar or Redoc: Redoc has no "try it"; Scalar's standalone bundle comes
 * with about 185 packages (engines Node >= 22) and calls out by default (fonts, a request proxy,
 * telemetry, an AI agent), each to be turned off; swagger-ui-dist is one package of static files
 * whose only dependency the project already has, and it renders OpenAPI 3.1 webhooks.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { basePath, document } from '../../../contract/spec/contract.ts';
import { controlDocument } from '../../../mock-core/src/control/document.ts';
import { ownValue } from '../../../mock-core/src/core/own.ts';

export const DOCS_PATH = '/docs/';

/** What a page of another site may not do with /docs/ and /console/: frame them (clickjacking, issue #34). */
export const FRAME_HEADERS: Readonly<Record<string, string>> = { 'content-security-policy': "frame-ancestors 'self'", 'x-frame-options': 'SAMEORIGIN' };

/** The page: Swagger UI's standalone layout, a definition selector, nothing fetched elsewhere. */
const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Creative Generation Service mock: API reference</title>
<link rel="icon" type="image/png" href="favicon-32x32.png">
<link rel="stylesheet" href="swagger-ui.css">
<style>body { margin: 0 } .swagger-ui .topbar .link { visibility: hidden }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="swagger-ui-standalone-preset.js"></script>
<script src="init.js"></script>
</body>
</html>
`;

// Served as a file of its own (a page without inline script keeps a strict CSP possible).
const INIT_JS = `window.ui = SwaggerUIBundle({
  urls: [
    { url: 'openapi.json', name: 'Public API (packages/contract/spec/openapi.yaml)' },
    { url: 'mock-control.json', name: 'Mock control plane (packages/contract/spec/mock-control.yaml)' },
  ],
  dom_id: '#swagger-ui',
  deepLinking: true,
  // No validator badge (it would call validator.swagger.io).
  validatorUrl: null,
  displayOperationId: true,
  persistAuthorization: true,
  tryItOutEnabled: false,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

/** The files of swagger-ui-dist the page loads (nothing else of the package is served). */
const VENDOR_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

interface Asset {
  type: string;
  body: Buffer;
  cacheControl: string;
}

const vendorDir = (): string => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * OpenAPI 3.1's default dialect: JSON Schema 2020-12 with the OAS vocabulary (`discriminator`,
 * `xml`, `externalDocs`, `example`). Swagger UI 5 renders no other value: it shows a warning box
 * instead ("jsonSchemaDialect ... not supported").
 */
const OAS_BASE_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/**
 * A document as the page gets it: JSON, its servers replaced by the mock's own (relative) address,
 * and `jsonSchemaDialect` set to the OAS default (D80). The documents keep naming JSON Schema
 * 2020-12 itself: Prism 5.14 validates with draft-07 when the field is absent and validates
 * nothing when it names the OAS dialect, which it does not know; for Swagger UI the two values
 * mean the same (our schemas use none of the OAS vocabulary's keywords to validate).
 */
function served(source: object, server: { url: string; description: string }): Buffer {
  return Buffer.from(JSON.stringify({ ...source, jsonSchemaDialect: OAS_BASE_DIALECT, servers: [server] }));
}

function load(name: string): Asset | undefined {
  switch (name) {
    case '':
    case 'index.html':
      return { type: 'text/html; charset=utf-8', body: Buffer.from(INDEX_HTML), cacheControl: 'no-cache' };
    case 'init.js':
      return { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT_JS), cacheControl: 'no-cache' };
    case 'openapi.json':
      return { type: 'application/json', body: served(document, { url: basePath, description: 'This mock' }), cacheControl: 'no-cache' };
    case 'mock-control.json':
      return { type: 'application/json', body: served(controlDocument(), { url: '/', description: 'This mock' }), cacheControl: 'no-cache' };
  }
  const type = ownValue(VENDOR_FILES, name);
  if (type === undefined) return undefined;
  return { type, body: readFileSync(join(vendorDir(), name)), cacheControl: 'public, max-age=3600' };
}

/**
 * The /docs/ stage of the mock's listener: answers GET and HEAD of the page and its files and
 * returns true; returns false for anything else (an unknown file under /docs/ gets the mock's
 * 404 problem, another method its 405 or 404).
 */
export function docsHandler(): (req: IncomingMessage, res: ServerResponse) => boolean {
  const assets = new Map<string, Asset>(); // read once, on first request
  return (req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith('/docs')) return false;
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === '/docs') {
      res.writeHead(308, { location: `${DOCS_PATH}${mark === -1 ? '' : url.slice(mark)}`, 'content-length': '0' });
      res.end();
      return true;
    }
    if (!path.startsWith(DOCS_PATH)) return false;
    const name = path.slice(DOCS_PATH.length);
    let asset = assets.get(name);
    if (!asset) {
      asset = load(name);
      if (!asset) return false;
      assets.set(name, asset);
    }
    res.writeHead(200, { 'content-type': asset.type, 'content-length': String(asset.body.length), 'cache-control': asset.cacheControl, 'x-content-type-options': 'nosniff', ...FRAME_HEADERS });
    res.end(asset.body);
    return true;
  };
}
