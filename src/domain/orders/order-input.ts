import { invalid, type DomainError } from '../errors.js';
import { onlyField } from '../json-object.js';
import { isValidId, MAX_ID } from '../paging/ids.js';
import { err, ok, type Result } from '../result.js';
import { STAFF_STATUS_ACTIONS, STAFF_STATUSES, type StaffStatus } from './order-status-machine.js';

/** What a caller passes to place an order; validated like a request body. */
export interface NewOrderInput {
  readonly petId: number;
}

/** What staff pass to move an order: the status it is to take. */
export interface OrderUpdateInput {
  readonly status: StaffStatus;
}

/** The body of placeOrder: `{"petId": n}`, n a JSON integer from 1 to 2^53-1 (not a string). */
export const validateNewOrder = (input: unknown): Result<NewOrderInput, DomainError> => {
  const petId = onlyField(input, 'petId');
  if (!petId.ok) return petId;
  if (typeof petId.value !== 'number' || !isValidId(petId.value)) {
    return err(invalid('petId', `petId must be an integer from 1 to ${MAX_ID}`));
  }
  return ok({ petId: petId.value });
};

/** The body of updateOrder: `{"status": "approved"}` or `{"status": "delivered"}`. */
export const validateOrderUpdate = (input: unknown): Result<OrderUpdateInput, DomainError> => {
  const status = onlyField(input, 'status');
  if (!status.ok) return status;
  const value = status.value;
  if (typeof value !== 'string' || !Object.hasOwn(STAFF_STATUS_ACTIONS, value)) {
    return err(invalid('status', `status must be one of ${STAFF_STATUSES.join(', ')}`));
  }
  return ok({ status: value as StaffStatus });
};
