import { createPet } from './create-pet.js';
import { getOpenApiDocument } from './get-openapi-document.js';
import { getPet } from './get-pet.js';
import { listPets } from './list-pets.js';

/** The API: one declaration per operation, in the order the document lists them. */
export const PET_STORE_OPERATIONS = [listPets, createPet, getPet, getOpenApiDocument] as const;
