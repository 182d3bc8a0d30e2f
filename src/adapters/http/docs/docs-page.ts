import { getOpenApiDocument } from '../operations/get-openapi-document.js';
import type { DocsAssetName } from './docs-assets.js';
import { PET_STORE_ROUTE_OF } from '../contract/pet-store-routes.js';
import { prepareStaticFile, type StaticFile } from './static-file.js';

/** Where the page is, under the base path; its assets are below it. */
export const DOCS_PATH = PET_STORE_ROUTE_OF.getDocsPage.path;

/** The query parameter of an asset's versioned URL: the file's content hash, so the URL may be cached for good. */
export const VERSION_PARAMETER = 'v';

/**
 * The page of the API served under `basePath`: Swagger UI over its openapi.json, every URL
 * absolute, each asset's naming its current version. A base path holds no character HTML
 * would need escaped (base-path.ts), nor does a version (base64url).
 */
export function docsPage(basePath: string, assets: ReadonlyMap<string, StaticFile>): Promise<StaticFile> {
  const asset = (name: DocsAssetName): string => {
    const file = assets.get(name);
    if (file === undefined) throw new Error(`the docs page links ${name}, which is not one of its assets`);
    return `${basePath}${DOCS_PATH}/${name}?${VERSION_PARAMETER}=${file.version}`;
  };
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
  return prepareStaticFile(Buffer.from(html), 'text/html; charset=utf-8');
}
