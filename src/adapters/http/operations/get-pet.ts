import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { petJson } from '../../../domain/pets/pet-json.js';
import { pathParameter, sendJson } from '../wire/request-context.js';
import { getPetDeclaration } from '../contract/declarations/get-pet.js';

export const getPet = {
  ...getPetDeclaration,
  handler: async (ctx, { catalog }) => {
    const pet = await catalog.get(pathParameter(ctx, 'petId'), ctx.span);
    if (!pet.ok) return sendDomainError(ctx, pet.error);
    sendJson(ctx, 200, petJson(pet.value));
  },
} as const satisfies Operation;
