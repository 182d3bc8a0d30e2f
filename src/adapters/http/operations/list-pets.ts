import { sendDomainError } from '../wire/failures.js';
import type { Operation, OperationServices, ReadAnswer } from '../contract/operation.js';
import { listingQuery, nextPageLink } from './listing.js';
import { petCursors } from '../../../domain/pets/pet-cursor.js';
import { sendJson } from '../wire/request-context.js';
import { PetStatusSchema, PetsSchema } from '../contract/schemas.js';

const PATH = '/pets';

async function readPage({ limit, status, cursor }: Readonly<Record<string, unknown>>, { catalog, basePath }: OperationServices): Promise<ReadAnswer> {
  const page = await catalog.listJson({ limit, status, cursor });
  if (!page.ok) return (ctx) => sendDomainError(ctx, page.error);
  const { json, next } = page.value;
  return (ctx) => sendJson(ctx, 200, json, next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)]);
}

export const listPets = {
  operationId: 'listPets',
  method: 'GET',
  path: PATH,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'List animals',
  description: 'Animals in ascending `id` order. The body is a bare array; the next page, if any, is announced in the `Link` header.',
  query: listingQuery('animals', PetStatusSchema, petCursors.shape),
  responses: {
    200: { description: 'A page of animals.', body: PetsSchema, headers: { Link: 'NextLink' } },
  },
  readAhead: readPage,
  handler: async (ctx, services) => (await readPage(ctx.query, services))(ctx),
} as const satisfies Operation;
