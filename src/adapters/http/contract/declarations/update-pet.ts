import type { OperationDeclaration } from '../operation-declaration.js';
import { PetSchema, PetUpdateSchema } from '../schemas.js';
import { petIdParameter } from './get-pet.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const updatePetDeclaration = {
  ...PET_STORE_ROUTE_OF.updatePet,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: "Set an animal's status (staff)",
  description:
    "The pet takes the status given, whatever it had. Its orders are left as they are: a later move of one still sets the pet's status as orders do (approved: `pending`, delivered: `sold`, cancelled: `available`), and placing an order still needs the pet `available`. A customer key gets 403 before anything is looked up.",
  params: petIdParameter,
  body: { description: '`{"status": "available"}`, `"pending"` or `"sold"`; any other field is a 400.', schema: PetUpdateSchema, examples: { sold: { summary: 'Mark the animal sold', value: { status: 'sold' } } } },
  responses: {
    200: { description: 'The animal in its new status.', body: PetSchema },
    403: { description: "Only staff keys may change a pet's status.", errors: ['forbidden'] },
    404: { description: 'No animal has this identifier.', errors: ['not_found'] },
  },
} as const satisfies OperationDeclaration;
