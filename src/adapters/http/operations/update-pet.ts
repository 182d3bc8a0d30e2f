import { sendDomainError } from '../wire/failures.js';
import { readJsonRequest } from '../wire/json-request.js';
import type { Operation } from '../contract/operation.js';
import { petJson } from '../../../domain/pets/pet-json.js';
import { validatePetUpdate } from '../../../domain/pets/pet-update.js';
import { authenticatedCaller, pathParameter, sendError, sendJson } from '../wire/request-context.js';
import { updatePetDeclaration } from '../contract/declarations/update-pet.js';

export const updatePet = {
  ...updatePetDeclaration,
  handler: async (ctx, { catalog }) => {
    const caller = authenticatedCaller(ctx);
    // Refused before the body is read: it closes the connection, and nothing is looked up.
    if (caller.role !== 'staff') return sendError(ctx, 'forbidden', "Only staff keys may change a pet's status.");
    const body = await readJsonRequest(ctx);
    if (body === undefined) return;
    const update = validatePetUpdate(body.value);
    if (!update.ok) return sendDomainError(ctx, update.error);
    const pet = await catalog.updateStatus(caller, pathParameter(ctx, 'petId'), update.value, ctx.span);
    if (!pet.ok) return sendDomainError(ctx, pet.error);
    sendJson(ctx, 200, petJson(pet.value));
  },
} as const satisfies Operation;
