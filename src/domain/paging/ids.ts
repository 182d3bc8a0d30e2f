import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { parsePlainInteger } from './plain-integer.js';

/** Ids stay within JavaScript's exact integer range: never rounded. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const isValidId = (value: number): boolean => Number.isSafeInteger(value) && value >= 1;

/** An id given as a JSON number or as path text, outside 1..2^53-1 rejected, never rounded to a neighbour. */
export const parseId = (field: string, value: unknown): Result<number, DomainError> => {
  const id = parsePlainInteger(value);
  if (id === undefined || !isValidId(id)) return err(invalid(field, `${field} must be an integer from 1 to ${MAX_ID}`));
  return ok(id);
};
