import { isPetStatus, type NewPet, type Pet } from '../../domain/pets/pet.js';

/** A pet's record: JSON without the id (the hash field), its status last, where the scripts read and replace it. */
export const petRecord = (pet: NewPet): string => JSON.stringify({ name: pet.name, categoryId: pet.categoryId, status: pet.status });

/** Records are written only by this adapter; a malformed one means the keyspace was tampered with. */
export const petOf = (id: number, record: string | null): Pet => {
  const fields: unknown = record === null ? null : JSON.parse(record);
  if (typeof fields === 'object' && fields !== null && 'name' in fields && 'categoryId' in fields && 'status' in fields) {
    const { name, categoryId, status } = fields;
    if (typeof name === 'string' && typeof categoryId === 'number' && isPetStatus(status)) {
      return Object.freeze({ id, name, categoryId, status });
    }
  }
  throw new Error(`Malformed pet record ${id} in Redis`);
};
