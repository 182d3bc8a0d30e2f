import type { PetStatus } from '../pets/pet.js';
import type { OrderStatus } from './order.js';

/** The moves an order can make after it is placed. */
export type OrderAction = 'approve' | 'deliver' | 'cancel';

/** placed -> approved -> delivered; placed | approved -> cancelled. */
export const ORDER_TRANSITIONS = {
  approve: { from: ['placed'], to: 'approved' },
  deliver: { from: ['approved'], to: 'delivered' },
  cancel: { from: ['placed', 'approved'], to: 'cancelled' },
} as const satisfies Record<OrderAction, { readonly from: readonly OrderStatus[]; readonly to: OrderStatus }>;

/** The status a pet takes when its latest order moves to this status (staff may also set a pet's status directly). */
export const PET_STATUS_OF_ORDER: Readonly<Record<OrderStatus, PetStatus>> = {
  placed: 'pending',
  approved: 'pending',
  delivered: 'sold',
  cancelled: 'available',
};

/** The statuses staff set with PATCH, each with its action: every transition's target but cancellation (DELETE). */
export const STAFF_STATUS_ACTIONS = {
  [ORDER_TRANSITIONS.approve.to]: 'approve',
  [ORDER_TRANSITIONS.deliver.to]: 'deliver',
} as const satisfies Partial<Record<OrderStatus, OrderAction>>;
export type StaffStatus = keyof typeof STAFF_STATUS_ACTIONS;
export const STAFF_STATUSES = Object.keys(STAFF_STATUS_ACTIONS) as StaffStatus[];
