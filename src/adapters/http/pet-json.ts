import type { Pet } from '../../domain/pets/pet.js';

/** Strings JSON.stringify leaves as they are: no quote, backslash, control character or surrogate. */
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * The JSON of one pet, byte for byte what JSON.stringify gives, built by hand: a page of
 * 20 pets serialises in about half the time, and a page is on the hot path. Ids are safe
 * integers and the status a fixed word, so only the name may need escaping.
 */
export const serializePet = (pet: Pet): string =>
  '{"id":' +
  pet.id +
  ',"name":' +
  (VERBATIM.test(pet.name) ? '"' + pet.name + '"' : JSON.stringify(pet.name)) +
  ',"categoryId":' +
  pet.categoryId +
  ',"status":"' +
  pet.status +
  '"}';

export const serializePets = (pets: readonly Pet[]): string => {
  if (pets.length === 0) return '[]';
  let json = '[' + serializePet(pets[0]!);
  for (let i = 1; i < pets.length; i++) json += ',' + serializePet(pets[i]!);
  return json + ']';
};
