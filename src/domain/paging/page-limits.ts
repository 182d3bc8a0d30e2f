import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { parsePlainInteger } from './plain-integer.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** Absent means the default; anything else (arrays from repeated query keys included) must be 1..100. */
export const parsePageLimit = (value: unknown): Result<number, DomainError> => {
  if (value === undefined) return ok(DEFAULT_PAGE_LIMIT);
  const limit = parsePlainInteger(value);
  if (limit === undefined || limit < 1 || limit > MAX_PAGE_LIMIT) {
    return err(invalid('limit', `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`));
  }
  return ok(limit);
};
