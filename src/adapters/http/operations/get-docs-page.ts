import Type from 'typebox';
import { DOCS_CONTENT_SECURITY_POLICY } from '../docs/docs-content-security-policy.js';
import { DOCS_PATH, docsPage } from '../docs/docs-page.js';
import { NOT_MODIFIED, STATIC_FILE_HEADERS } from '../docs/static-file-responses.js';
import { sendStaticFile, type StaticFile } from '../docs/static-file.js';
import type { Operation, OperationServices } from '../contract/operation.js';

/** Each handler's page, built on its first request, as it depends on the handler's base path. */
const pages = new WeakMap<OperationServices, StaticFile>();

export const getDocsPage = {
  operationId: 'getDocsPage',
  method: 'GET',
  path: DOCS_PATH,
  auth: 'public',
  summary: 'This documentation, as a page',
  description: 'Swagger UI over this document, its files served from this origin (no CDN). Readable without an API key; limited per client address like any request.',
  responses: {
    200: {
      description: 'The HTML page; its Content-Security-Policy admits only this origin.',
      body: Type.String(),
      mediaTypes: ['text/html'],
      headers: { ...STATIC_FILE_HEADERS, 'Content-Security-Policy': 'Content-Security-Policy' },
    },
    304: NOT_MODIFIED,
  },
  handler: (ctx, services) => {
    let page = pages.get(services);
    if (page === undefined) pages.set(services, (page = docsPage(services.basePath)));
    sendStaticFile(ctx, page, ['content-security-policy', DOCS_CONTENT_SECURITY_POLICY]);
  },
} as const satisfies Operation;
