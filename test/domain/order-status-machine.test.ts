import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, isOrderStatus, type OrderStatus } from '../../src/domain/orders/order.js';
import {
  ORDER_TRANSITIONS,
  PET_STATUS_OF_ORDER,
  STAFF_STATUS_ACTIONS,
  STAFF_STATUSES,
  type OrderAction,
} from '../../src/domain/orders/order-status-machine.js';

const ACTIONS = Object.keys(ORDER_TRANSITIONS) as OrderAction[];

/** What the machine makes of `action` on an order in `status`: its new status, or undefined when refused. */
const apply = (status: OrderStatus, action: OrderAction): OrderStatus | undefined => {
  const { from, to } = ORDER_TRANSITIONS[action];
  return (from as readonly OrderStatus[]).includes(status) ? to : undefined;
};

// The whole table, written out: placed -> approved -> delivered; placed | approved -> cancelled.
const EXPECTED: Record<OrderStatus, Record<OrderAction, OrderStatus | undefined>> = {
  placed: { approve: 'approved', deliver: undefined, cancel: 'cancelled' },
  approved: { approve: undefined, deliver: 'delivered', cancel: 'cancelled' },
  delivered: { approve: undefined, deliver: undefined, cancel: undefined },
  cancelled: { approve: undefined, deliver: undefined, cancel: undefined },
};

const cases = ORDER_STATUSES.flatMap((status) => ACTIONS.map((action) => [status, action, EXPECTED[status][action]] as const));

describe('order status machine', () => {
  it('has exactly the actions approve, deliver and cancel', () => {
    expect(ACTIONS.sort()).toEqual(['approve', 'cancel', 'deliver']);
  });

  it.each(cases.filter(([, , to]) => to !== undefined))('an order %s may %s: it becomes %s', (status, action, to) => {
    expect(apply(status, action)).toBe(to);
  });

  it.each(cases.filter(([, , to]) => to === undefined))('an order %s may not %s', (status, action) => {
    expect(apply(status, action)).toBeUndefined();
  });

  it('every transition names only known statuses, and no action leads back to where it starts', () => {
    for (const action of ACTIONS) {
      const { from, to } = ORDER_TRANSITIONS[action];
      expect(isOrderStatus(to)).toBe(true);
      expect(from.length).toBeGreaterThan(0);
      for (const status of from) expect(isOrderStatus(status)).toBe(true);
      expect(from as readonly OrderStatus[]).not.toContain(to);
    }
  });

  it('delivered and cancelled are final: no action leaves them', () => {
    for (const status of ['delivered', 'cancelled'] as const) {
      for (const action of ACTIONS) expect(apply(status, action)).toBeUndefined();
    }
  });

  it('from placed, every status is reachable and no status is reached twice on one path (no cycles)', () => {
    const reached = new Set<OrderStatus>();
    const walk = (status: OrderStatus, path: readonly OrderStatus[]): void => {
      expect(path).not.toContain(status);
      reached.add(status);
      for (const action of ACTIONS) {
        const next = apply(status, action);
        if (next !== undefined) walk(next, [...path, status]);
      }
    };
    walk('placed', []);
    expect([...reached].sort()).toEqual([...ORDER_STATUSES].sort());
  });

  it('a pet is pending while its order is placed or approved, sold once delivered, available once cancelled', () => {
    expect(PET_STATUS_OF_ORDER).toEqual({ placed: 'pending', approved: 'pending', delivered: 'sold', cancelled: 'available' });
  });

  it('an order is live (holds its pet) exactly when it is placed or approved', () => {
    // Live is what holds the pet: the statuses that keep it pending.
    expect(ORDER_STATUSES.filter((status) => PET_STATUS_OF_ORDER[status] === 'pending')).toEqual(['placed', 'approved']);
  });

  it('staff set approved (approve) and delivered (deliver) with PATCH; cancelling is not a PATCH status', () => {
    expect({ ...STAFF_STATUS_ACTIONS }).toEqual({ approved: 'approve', delivered: 'deliver' });
    expect(STAFF_STATUSES).toEqual(['approved', 'delivered']);
    for (const status of STAFF_STATUSES) expect(ORDER_TRANSITIONS[STAFF_STATUS_ACTIONS[status]].to).toBe(status);
  });

  it('isOrderStatus accepts exactly the four statuses', () => {
    for (const status of ORDER_STATUSES) expect(isOrderStatus(status)).toBe(true);
    for (const other of ['Placed', 'pending', 'sold', 'available', '', 'cancel', null, undefined, 1, ['placed'], {}]) {
      expect(isOrderStatus(other)).toBe(false);
    }
  });
});
