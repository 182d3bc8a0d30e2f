import type { DomainError } from '../errors.js';
import { parseId } from '../paging/ids.js';
import type { Result } from '../result.js';

/** A petId outside 1..2^53-1 is rejected, never rounded to a neighbouring pet. */
export const parsePetId = (value: unknown): Result<number, DomainError> => parseId('petId', value);
