export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const isPetStatus = (value: unknown): value is PetStatus =>
  value === 'available' || value === 'pending' || value === 'sold';

export interface NewPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

/** What an embedder passes to create a pet: validated like a request body, `status` defaulting to available. */
export interface NewPetInput {
  readonly name: string;
  readonly categoryId: number;
  readonly status?: PetStatus;
}

export interface Pet extends NewPet {
  readonly id: number;
}

/** How many pets have each status. */
export type Inventory = Readonly<Record<PetStatus, number>>;

// Ids and categoryIds share the id range of every resource.
export { MAX_ID, isValidId } from '../paging/ids.js';
