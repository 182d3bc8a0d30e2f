export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const isPetStatus = (value: unknown): value is PetStatus =>
  value === 'available' || value === 'pending' || value === 'sold';

export interface NewPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

export interface Pet extends NewPet {
  readonly id: number;
}

/** Ids and categoryIds stay within JavaScript's exact integer range: never rounded. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const isValidId = (value: number): boolean => Number.isSafeInteger(value) && value >= 1;
