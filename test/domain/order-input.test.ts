import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateNewOrder, validateOrderUpdate } from '../../src/domain/orders/order-input.js';
import { MAX_ID } from '../../src/domain/paging/ids.js';
import { runs } from '../support/property-runs.js';

const invalid = (field: string, message: string) => ({ ok: false, error: { code: 'invalid_request', field, message } });
const PET_ID_RANGE = `petId must be an integer from 1 to ${MAX_ID}`;
const STATUS_CHOICE = 'status must be one of approved, delivered';

describe('validateNewOrder', () => {
  it.each([1, 2, 42, MAX_ID, 3.0])('accepts {"petId": %j}', (petId) => {
    expect(validateNewOrder({ petId })).toEqual({ ok: true, value: { petId } });
  });

  it('accepts every id from 1 to 2^53-1, unchanged', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ID }), (petId) => {
        expect(validateNewOrder({ petId })).toEqual({ ok: true, value: { petId } });
      }),
      { numRuns: runs(1_000) },
    );
  });

  it.each([
    ['the string "1"', '1'],
    ['1.5', 1.5],
    ['0', 0],
    ['-1', -1],
    ['2^53', 2 ** 53],
    ['2^53 + 2', 2 ** 53 + 2],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['null', null],
    ['true', true],
    ['an array', [1]],
    ['an object', { id: 1 }],
    ['a bigint', 1n],
  ])('rejects petId %s with field petId', (_, petId) => {
    expect(validateNewOrder({ petId })).toEqual(invalid('petId', PET_ID_RANGE));
  });

  it('rejects a body without petId', () => {
    expect(validateNewOrder({})).toEqual(invalid('petId', 'petId is required'));
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an array', [{ petId: 1 }]],
    ['an empty array', []],
    ['a number', 1],
    ['a string', '{"petId":1}'],
    ['true', true],
  ])('rejects a body that is %s with field body', (_, body) => {
    expect(validateNewOrder(body)).toEqual(invalid('body', 'body must be a JSON object'));
  });

  it.each([
    [{ petId: 1, quantity: 1 }, 'quantity'],
    [{ petId: 1, status: 'placed' }, 'status'],
    [{ petId: 1, id: 7 }, 'id'],
    [{ quantity: 1 }, 'quantity'],
    [{ petid: 1 }, 'petid'],
    [{ PetId: 1 }, 'PetId'],
    [JSON.parse('{"petId":1,"__proto__":{"x":1}}') as unknown, '__proto__'],
    [JSON.parse('{"petId":1,"constructor":1}') as unknown, 'constructor'],
  ])('rejects %j: any other field is a 400 naming it', (body, field) => {
    expect(validateNewOrder(body)).toEqual(invalid(field, `unknown field: ${field}`));
  });

  it('reports an unknown field before a bad petId', () => {
    expect(validateNewOrder({ petId: 'x', extra: true })).toEqual(invalid('extra', 'unknown field: extra'));
  });

  it('any object with a key other than petId is refused, whatever petId is', () => {
    fc.assert(
      fc.property(
        fc.string().filter((key) => key !== 'petId'),
        fc.jsonValue(),
        fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        (key, value, petId) => {
          const body: Record<string, unknown> = petId === undefined ? {} : { petId };
          Object.defineProperty(body, key, { value, enumerable: true, configurable: true, writable: true });
          const result = validateNewOrder(body);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.error.field).toBe(key);
        },
      ),
      { numRuns: runs(1_000) },
    );
  });

  it('a prototype that has petId does not count: only own fields do', () => {
    expect(validateNewOrder(Object.create({ petId: 1 }) as unknown)).toEqual(invalid('petId', 'petId is required'));
  });
});

describe('validateOrderUpdate', () => {
  it('reads {"status": "approved"} and {"status": "delivered"} as the staff status asked for', () => {
    expect(validateOrderUpdate({ status: 'approved' })).toEqual({ ok: true, value: { status: 'approved' } });
    expect(validateOrderUpdate({ status: 'delivered' })).toEqual({ ok: true, value: { status: 'delivered' } });
  });

  it.each([
    'cancelled',
    'placed',
    'Approved',
    'APPROVED',
    ' approved',
    'approved ',
    'approve',
    'deliver',
    'sold',
    '',
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
    1,
    null,
    true,
    ['approved'],
    { status: 'approved' },
  ])('rejects status %j with field status', (status) => {
    expect(validateOrderUpdate({ status })).toEqual(invalid('status', STATUS_CHOICE));
  });

  it('rejects a body without status', () => {
    expect(validateOrderUpdate({})).toEqual(invalid('status', 'status is required'));
  });

  it.each([
    [{ status: 'approved', petId: 1 }, 'petId'],
    [{ status: 'delivered', id: 1 }, 'id'],
    [{ state: 'approved' }, 'state'],
  ])('rejects %j: any other field is a 400 naming it', (body, field) => {
    expect(validateOrderUpdate(body)).toEqual(invalid(field, `unknown field: ${field}`));
  });

  it.each([
    ['null', null],
    ['an array', [{ status: 'approved' }]],
    ['a string', 'approved'],
  ])('rejects a body that is %s', (_, body) => {
    expect(validateOrderUpdate(body)).toEqual(invalid('body', 'body must be a JSON object'));
  });

  it('accepts exactly the two staff statuses among any strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('approved', 'delivered', 'placed', 'cancelled')), (status) => {
        const result = validateOrderUpdate({ status });
        expect(result.ok).toBe(status === 'approved' || status === 'delivered');
      }),
      { numRuns: runs(2_000) },
    );
  });
});
