import type { OperationDeclaration } from '../operation-declaration.js';
import { MAX_BODY_BYTES } from '../../wire/request-limits.js';
import { NewPetSchema, PetSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const createPetDeclaration = {
  ...PET_STORE_ROUTE_OF.createPet,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'Add an animal',
  description: 'Any valid key creates a pet in any status. Its status then changes through its orders, or by a staff key (`updatePet`).',
  body: {
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes of UTF-8; \`Content-Type: application/json\` (a charset parameter is fine).`,
    schema: NewPetSchema,
    examples: {
      dog: { summary: 'A dog in category 1', value: { name: 'Rex', categoryId: 1 } },
      pending: { summary: 'A cat listed as pending', value: { name: 'Tom', categoryId: 2, status: 'pending' } },
    },
  },
  idempotent: true,
  responses: {
    201: { description: 'Animal added; the body carries its assigned `id`.', body: PetSchema, headers: { Location: 'Location' } },
  },
} as const satisfies OperationDeclaration;
