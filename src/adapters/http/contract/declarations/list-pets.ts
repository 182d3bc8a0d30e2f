import type { OperationDeclaration } from '../operation-declaration.js';
import { listingQuery } from '../listing-query.js';
import { petCursors } from '../../../../domain/pets/pet-cursor.js';
import { PetStatusSchema, PetsSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const listPetsDeclaration = {
  ...PET_STORE_ROUTE_OF.listPets,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'List animals',
  description: 'Animals in ascending `id` order. The body is a bare array; the next page, if any, is announced in the `Link` header.',
  query: listingQuery('animals', PetStatusSchema, petCursors.shape),
  responses: {
    200: { description: 'A page of animals.', body: PetsSchema, headers: { Link: 'NextLink' } },
  },
} as const satisfies OperationDeclaration;
