import { invalid, type DomainError } from '../errors.js';
import { onlyField } from '../json-object.js';
import { err, ok, type Result } from '../result.js';
import { isPetStatus, PET_STATUSES, type PetStatus } from './pet.js';

/** What staff send to set a pet's status: any PetStatus. */
export interface PetUpdateInput {
  readonly status: PetStatus;
}

/** The body of updatePet: `{"status": s}`, s one of PET_STATUSES; any other field is a 400. */
export const validatePetUpdate = (input: unknown): Result<PetUpdateInput, DomainError> => {
  const status = onlyField(input, 'status');
  if (!status.ok) return status;
  if (!isPetStatus(status.value)) return err(invalid('status', `status must be one of ${PET_STATUSES.join(', ')}`));
  return ok({ status: status.value });
};
