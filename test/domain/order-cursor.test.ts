import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderStatus } from '../../src/domain/orders/order.js';
import { orderCursors } from '../../src/domain/orders/order-cursor.js';
import type { PageCursor } from '../../src/domain/paging/page-cursor.js';
import { MAX_ID, PET_STATUSES, type PetStatus } from '../../src/domain/pets/pet.js';
import { petCursors } from '../../src/domain/pets/pet-cursor.js';
import { runs } from '../support/property-runs.js';

const base64Url = (text: string): string => Buffer.from(text, 'latin1').toString('base64url');
const rejected = { ok: false, error: { code: 'invalid_request', field: 'cursor', message: 'cursor is not one issued by this service' } };

const afterIdArb = fc.oneof(fc.integer({ min: 1, max: MAX_ID }), fc.constantFrom(1, MAX_ID));
const orderCursorArb: fc.Arbitrary<PageCursor<OrderStatus>> = fc
  .tuple(afterIdArb, fc.option(fc.constantFrom(...ORDER_STATUSES), { nil: undefined }))
  .map(([afterId, status]) => (status === undefined ? { afterId } : { afterId, status }));
const petCursorArb: fc.Arbitrary<PageCursor<PetStatus>> = fc
  .tuple(afterIdArb, fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }))
  .map(([afterId, status]) => (status === undefined ? { afterId } : { afterId, status }));

describe('order cursor', () => {
  it('every order cursor decodes to the position and status filter it was issued for', () => {
    fc.assert(
      fc.property(orderCursorArb, (cursor) => {
        const text = orderCursors.encode(cursor);
        expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(orderCursors.decode(text)).toEqual({ ok: true, value: cursor });
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('the longest order cursor (2^53-1, cancelled) still decodes', () => {
    const cursor = { afterId: MAX_ID, status: 'cancelled' as const };
    expect(orderCursors.decode(orderCursors.encode(cursor))).toEqual({ ok: true, value: cursor });
  });

  it('a pet cursor is a foreign cursor to orders', () => {
    fc.assert(
      fc.property(petCursorArb, (cursor) => {
        expect(orderCursors.decode(petCursors.encode(cursor))).toEqual(rejected);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('an order cursor is a foreign cursor to pets', () => {
    fc.assert(
      fc.property(orderCursorArb, (cursor) => {
        expect(petCursors.decode(orderCursors.encode(cursor))).toEqual(rejected);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('no text is both an order cursor and a pet cursor', () => {
    fc.assert(
      fc.property(fc.oneof(orderCursorArb.map(orderCursors.encode), petCursorArb.map(petCursors.encode), fc.string()), (text) => {
        expect(orderCursors.decode(text).ok && petCursors.decode(text).ok).toBe(false);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it.each([
    ['the pet tag', base64Url('v1.5')],
    ['the pet tag with an order status', base64Url('v1.5.placed')],
    ['the order tag with a pet status', base64Url('o1.5.sold')],
    ['the order tag with pending', base64Url('o1.5.pending')],
    ['another version', base64Url('o2.5')],
    ['an upper-case tag', base64Url('O1.5')],
    ['id zero', base64Url('o1.0')],
    ['a leading zero', base64Url('o1.05')],
    ['an id past 2^53-1', base64Url('o1.9007199254740992')],
    ['an unknown status', base64Url('o1.5.shipped')],
    ['a capitalised status', base64Url('o1.5.Placed')],
    ['trailing garbage', base64Url('o1.5.placed.x')],
    ['padding', `${base64Url('o1.5')}=`],
    ['empty', ''],
    ['far too long', 'A'.repeat(10_000)],
  ])('rejects a cursor with %s', (_, text) => {
    expect(orderCursors.decode(text)).toEqual(rejected);
  });

  it('accepts only the strings it issues', () => {
    const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    const nearly = fc
      .tuple(
        fc.constantFrom('o1.', 'o1', 'v1.', 'o0.', 'o1..', ''),
        fc.oneof(fc.bigInt({ min: -10n, max: 2n ** 64n }).map(String), fc.string({ maxLength: 4 })),
        fc.constantFrom('', '.placed', '.approved', '.delivered', '.cancelled', '.sold', '.', ' '),
      )
      .map(([prefix, id, suffix]) => base64Url(`${prefix}${id}${suffix}`));
    // Strings it issued, so the accepting branch runs at any run count.
    const issued = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }).map((afterId) => orderCursors.encode({ afterId }));
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: alphabet, maxLength: 44 }), nearly, issued), (text) => {
        const decoded = orderCursors.decode(text);
        if (decoded.ok) {
          accepted += 1;
          expect(orderCursors.encode(decoded.value)).toBe(text);
        } else {
          expect(decoded).toEqual(rejected);
        }
      }),
      { numRuns: runs(10_000) },
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
