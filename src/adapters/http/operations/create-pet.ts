import { validateNewPet } from '../../../domain/pets/new-pet-validation.js';
import type { NewPet, Pet } from '../../../domain/pets/pet.js';
import { createIdempotently, type IdempotentCreation } from './idempotent-create.js';
import { readJsonRequest } from '../wire/json-request.js';
import type { Operation, OperationServices } from '../contract/operation.js';
import { petJson } from '../../../domain/pets/pet-json.js';
import { sendJson } from '../wire/request-context.js';
import { getPet } from './get-pet.js';
import { createPetDeclaration } from '../contract/declarations/create-pet.js';

// `/pets/` from getPet's declared path, built once; the Location is this under the base path.
const ITEM_PATH = getPet.path.slice(0, getPet.path.indexOf('{'));

const creation = (services: OperationServices): IdempotentCreation<Pet, NewPet> => ({
  operationId: 'createPet',
  validate: validateNewPet,
  create: (input, claim, scope) => services.catalog.create(input, claim, scope),
  replayOf: (result) => (result.kind === 'pet' ? result.pet : undefined),
  send: (ctx, pet, extra) => sendJson(ctx, 201, petJson(pet), ['location', services.basePath + ITEM_PATH + pet.id, ...(extra ?? [])]),
});

export const createPet = {
  ...createPetDeclaration,
  handler: async (ctx, services) => {
    const body = await readJsonRequest(ctx);
    if (body !== undefined) await createIdempotently(ctx, services, body, creation(services));
  },
} as const satisfies Operation;
