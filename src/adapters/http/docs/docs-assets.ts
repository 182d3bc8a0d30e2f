import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DOCS_INITIALIZER } from './docs-initializer.js';
import { prepareStaticFile, type StaticFile } from './static-file.js';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** The installed swagger-ui-dist's own copy of one of its files. */
const fromSwaggerUi = (file: string) => () => readFile(join(dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')), file));

/**
 * The files the docs page loads, by the name they are served under: the only files reachable,
 * so no part of a URL ever becomes a path on disk.
 */
const DOCS_ASSETS = {
  'swagger-ui-bundle.js': { contentType: JAVASCRIPT, read: fromSwaggerUi('swagger-ui-bundle.js') },
  'swagger-ui.css': { contentType: 'text/css; charset=utf-8', read: fromSwaggerUi('swagger-ui.css') },
  'favicon-32x32.png': { contentType: 'image/png', read: fromSwaggerUi('favicon-32x32.png') },
  'petstore-docs.js': { contentType: JAVASCRIPT, read: () => Promise.resolve(Buffer.from(DOCS_INITIALIZER)) },
} as const;

export type DocsAssetName = keyof typeof DOCS_ASSETS;

export const DOCS_ASSET_NAMES = Object.keys(DOCS_ASSETS) as [DocsAssetName, ...DocsAssetName[]];

/** The media types the assets are served as, for the document. */
export const DOCS_ASSET_MEDIA_TYPES = [...new Set(Object.values(DOCS_ASSETS).map(({ contentType }) => contentType.split(';')[0]!))] as [string, ...string[]];

let loaded: Promise<ReadonlyMap<string, StaticFile>> | undefined;

async function readDocsAssets(): Promise<ReadonlyMap<string, StaticFile>> {
  const files = await Promise.all(
    Object.entries(DOCS_ASSETS).map(async ([name, { contentType, read }]) => [name, await prepareStaticFile(await read(), contentType)] as const),
  );
  return new Map(files);
}

/**
 * The assets by name, read and compressed on first use (most embedders never serve the page;
 * brotli at its best takes about 2 s of zlib's thread pool for the bundle) and then kept in
 * memory (about 2.8 MB with the encodings) for every handler of the process; a failed read is
 * retried by the next request.
 */
export function docsAssets(): Promise<ReadonlyMap<string, StaticFile>> {
  loaded ??= readDocsAssets().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}
