import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { petJson } from '../../../domain/pets/pet-json.js';
import { pathParameter, sendJson } from '../wire/request-context.js';
import { idSchema, PetSchema } from '../contract/schemas.js';

export const getPet = {
  operationId: 'getPet',
  method: 'GET',
  path: '/pets/{petId}',
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'Get an animal',
  deprecation: { sunsetAt: new Date('2030-12-05T00:00:00Z'), successor: '/pets' },
  params: {
    petId: { description: 'Identifier of the animal: plain decimal digits.', schema: idSchema('Identifier of the animal.') },
  },
  responses: {
    200: { description: 'The animal.', body: PetSchema },
    404: { description: 'No animal has this identifier.', errors: ['not_found'] },
  },
  handler: async (ctx, { catalog }) => {
    const pet = await catalog.get(pathParameter(ctx, 'petId'));
    if (!pet.ok) return sendDomainError(ctx, pet.error);
    sendJson(ctx, 200, petJson(pet.value));
  },
} as const satisfies Operation;
