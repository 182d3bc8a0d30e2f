import { sendDomainError } from '../failures.js';
import type { Operation } from '../operation.js';
import { listingQuery, nextPageLink } from '../listing.js';
import { fromWire, sendJson } from '../request-context.js';
import { PetStatusSchema, PetsSchema } from '../schemas.js';

const PATH = '/pets';

export const listPets = {
  operationId: 'listPets',
  method: 'GET',
  path: PATH,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'List animals',
  description: 'Animals in ascending `id` order. The body is a bare array; the next page, if any, is announced in the `Link` header.',
  query: listingQuery('animals', PetStatusSchema),
  responses: {
    200: { description: 'A page of animals.', body: PetsSchema, headers: { Link: 'NextLink' } },
  },
  handler: async (ctx, { catalog, basePath }) => {
    const { limit, status, cursor } = ctx.query;
    const page = await catalog.listJson(fromWire({ limit, status, cursor }));
    if (!page.ok) return sendDomainError(ctx, page.error);
    const next = page.value.next;
    sendJson(ctx, 200, page.value.json, next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)]);
  },
} as const satisfies Operation;
