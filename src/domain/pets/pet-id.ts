import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { isValidId, MAX_ID } from './pet.js';
import { parsePlainInteger } from './plain-integer.js';

/** A petId outside 1..2^53-1 is rejected, never rounded to a neighbouring pet. */
export const parsePetId = (value: unknown): Result<number, DomainError> => {
  const id = parsePlainInteger(value);
  if (id === undefined || !isValidId(id)) {
    return err(invalid('petId', `petId must be an integer from 1 to ${MAX_ID}`));
  }
  return ok(id);
};
