import type { OperationDeclaration } from '../operation-declaration.js';
import { CREATION_STATUSES } from '../../../../domain/pets/new-pet-validation.js';
import { PET_STATUSES } from '../../../../domain/pets/pet.js';
import { MAX_BODY_BYTES } from '../../wire/request-limits.js';
import { NewPetSchema, PetSchema } from '../schemas.js';

const quoted = (statuses: readonly string[]): string => statuses.map((status) => `\`${status}\``).join(' or ');

export const createPetDeclaration = {
  operationId: 'createPet',
  method: 'POST',
  path: '/pets',
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'Add an animal',
  body: {
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes of UTF-8; \`Content-Type: application/json\` (a charset parameter is fine).`,
    schema: NewPetSchema,
  },
  idempotent: true,
  responses: {
    201: { description: 'Animal added; the body carries its assigned `id`.', body: PetSchema, headers: { Location: 'Location' } },
    403: {
      description: `A customer key may create a pet only as ${quoted(CREATION_STATUSES.customer)} (\`status\` omitted or so); ${quoted(PET_STATUSES.filter((status) => !CREATION_STATUSES.customer.includes(status)))} only a staff key may give, recording a pet already held or sold. A pet's status otherwise changes only through its orders.`,
      errors: ['forbidden'],
    },
  },
} as const satisfies OperationDeclaration;
