import Type from 'typebox';
import { docsAssets } from '../docs/docs-assets.js';
import { DOCS_CONTENT_SECURITY_POLICY } from '../docs/docs-content-security-policy.js';
import { docsPage } from '../docs/docs-page.js';
import { NOT_MODIFIED, STATIC_FILE_BODY_HEADERS } from '../docs/static-file-responses.js';
import { preparedPer, sendStaticFile } from '../docs/static-file.js';
import type { Operation, OperationServices } from '../contract/operation.js';
import { PET_STORE_ROUTE_OF } from '../contract/pet-store-routes.js';

/** Each handler's page, built on its first request, as it depends on the handler's base path. */
const pageOf = preparedPer(async (services: OperationServices) => docsPage(services.basePath, await docsAssets()));

const CONTENT_SECURITY_POLICY = ['content-security-policy', DOCS_CONTENT_SECURITY_POLICY];

export const getDocsPage = {
  ...PET_STORE_ROUTE_OF.getDocsPage,
  auth: 'public',
  summary: 'This documentation, as a page',
  description:
    'Swagger UI over this document, its files served from this origin (no CDN), each linked by a URL naming its version so a browser keeps it. Readable without an API key; limited per client address like any request.',
  responses: {
    200: {
      description: 'The HTML page; its Content-Security-Policy admits only this origin.',
      body: Type.String(),
      mediaTypes: ['text/html'],
      headers: { ...STATIC_FILE_BODY_HEADERS, 'Content-Security-Policy': 'Content-Security-Policy' },
    },
    304: NOT_MODIFIED,
  },
  handler: async (ctx, services) => sendStaticFile(ctx, await pageOf(services), { extra: CONTENT_SECURITY_POLICY }),
} as const satisfies Operation;
