import Type from 'typebox';
import { DOCS_ASSET_MEDIA_TYPES, DOCS_ASSET_NAMES, docsAssets } from '../docs/docs-assets.js';
import { VERSION_PARAMETER } from '../docs/docs-page.js';
import { NOT_MODIFIED, STATIC_FILE_BODY_HEADERS } from '../docs/static-file-responses.js';
import { sendStaticFile } from '../docs/static-file.js';
import type { Operation } from '../contract/operation.js';
import { sendError } from '../wire/request-context.js';
import { PET_STORE_ROUTE_OF } from '../contract/pet-store-routes.js';

export const getDocsAsset = {
  ...PET_STORE_ROUTE_OF.getDocsAsset,
  auth: 'public',
  summary: 'A file of the documentation page',
  description:
    'Swagger UI (from the installed swagger-ui-dist) and the script that starts it, compressed (`br` or `gzip`) for a client that accepts it. Readable without an API key; limited per client address like any request.',
  params: {
    asset: { description: 'The file; any other name is a 404.', schema: Type.Enum(DOCS_ASSET_NAMES) },
  },
  query: {
    [VERSION_PARAMETER]: {
      description: "The file's version, as the page links it: its content hash. While it is the current one the answer may be kept a year (`immutable`); otherwise it is revalidated.",
      schema: Type.String(),
    },
  },
  responses: {
    200: { description: 'The file.', body: Type.String(), mediaTypes: DOCS_ASSET_MEDIA_TYPES, headers: STATIC_FILE_BODY_HEADERS },
    304: NOT_MODIFIED,
    404: { description: 'No file of the page has this name.', errors: ['not_found'] },
  },
  handler: async (ctx) => {
    const name = ctx.params['asset'] ?? '';
    const file = (await docsAssets()).get(name);
    if (file === undefined) return sendError(ctx, 'not_found', `The docs page has no file named ${JSON.stringify(name)}.`);
    sendStaticFile(ctx, file, { versioned: ctx.query[VERSION_PARAMETER] === file.version });
  },
} as const satisfies Operation;
