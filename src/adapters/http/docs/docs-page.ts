import { getOpenApiDocument } from '../operations/get-openapi-document.js';
import type { DocsAssetName } from './docs-assets.js';
import { staticFile, type StaticFile } from './static-file.js';

/** Where the page is, under the base path; its assets are below it. */
export const DOCS_PATH = '/docs';

/**
 * The page of the API served under `basePath`: Swagger UI over its openapi.json, every URL
 * absolute. A base path holds no character HTML would need escaped (base-path.ts).
 */
export function docsPage(basePath: string): StaticFile {
  const asset = (name: DocsAssetName): string => `${basePath}${DOCS_PATH}/${name}`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API</title>
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui" data-openapi-url="${basePath}${getOpenApiDocument.path}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('petstore-docs.js')}"></script>
</body>
</html>
`;
  return staticFile(Buffer.from(html), 'text/html; charset=utf-8');
}
