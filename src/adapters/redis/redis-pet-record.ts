import type { NewPet, Pet } from '../../domain/pets/pet.js';
import { toPet } from '../../domain/pets/pet-json.js';

/** A pet's record: JSON without the id (the hash field), its status last, where the scripts read and replace it. */
export const petRecord = (pet: NewPet): string => JSON.stringify({ name: pet.name, categoryId: pet.categoryId, status: pet.status });

/** Records are written only by this adapter; a malformed one means the keyspace was tampered with. */
export const petOf = (id: number, record: string | null): Pet => {
  const fields: unknown = record === null ? null : JSON.parse(record);
  const pet = typeof fields === 'object' && fields !== null ? toPet({ ...fields, id }) : undefined;
  if (pet === undefined) throw new Error(`Malformed pet record ${id} in Redis`);
  return pet;
};
