import type { OperationDeclaration } from '../operation-declaration.js';
import { idSchema, PetSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const petIdParameter = {
  petId: { description: 'Identifier of the animal: plain decimal digits.', schema: idSchema('Identifier of the animal.') },
};

export const getPetDeclaration = {
  ...PET_STORE_ROUTE_OF.getPet,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'Get an animal',
  deprecation: { sunsetAt: new Date('2030-12-05T00:00:00Z'), successor: '/pets' },
  params: petIdParameter,
  responses: {
    200: { description: 'The animal.', body: PetSchema },
    404: { description: 'No animal has this identifier.', errors: ['not_found'] },
  },
} as const satisfies OperationDeclaration;
