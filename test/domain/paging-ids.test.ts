import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ID, isValidId, parseId } from '../../src/domain/paging/ids.js';
import { parsePlainInteger } from '../../src/domain/paging/plain-integer.js';
import { runs } from '../support/property-runs.js';

const refused = { ok: false, error: { code: 'invalid_request', field: 'orderId', message: `orderId must be an integer from 1 to ${MAX_ID}` } };

describe('ids', () => {
  it('MAX_ID is 2^53-1', () => {
    expect(MAX_ID).toBe(2 ** 53 - 1);
  });

  it.each([
    [1, 1],
    ['1', 1],
    ['42', 42],
    [3.0, 3],
    ['007', 7],
    [MAX_ID, MAX_ID],
    [String(MAX_ID), MAX_ID],
  ])('parseId accepts %j as %j', (value, id) => {
    expect(parseId('orderId', value)).toEqual({ ok: true, value: id });
  });

  it.each([0, -1, 1.5, 2 ** 53, '0', '-1', '+1', '1.0', '1e3', ' 1', '1 ', '0x10', '', '9007199254740992', '9'.repeat(400), null, true, ['1'], {}, Number.NaN])(
    'parseId rejects %j naming the field',
    (value) => {
      expect(parseId('orderId', value)).toEqual(refused);
    },
  );

  it('an id given as text is the id given as a number, and anything else in 1..2^53-1 is refused, never rounded', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 1, max: MAX_ID }), fc.bigInt({ min: 0n, max: 2n ** 60n }).map(Number)), (n) => {
        const fromText = parseId('orderId', String(BigInt(n)));
        const fromNumber = parseId('orderId', n);
        expect(fromText).toEqual(fromNumber);
        expect(fromNumber.ok).toBe(isValidId(n));
        if (fromNumber.ok) expect(fromNumber.value).toBe(n);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('parsePlainInteger reads only plain decimal digits from text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (text) => {
        const parsed = parsePlainInteger(text);
        expect(parsed === undefined).toBe(!/^[0-9]+$/.test(text));
      }),
      { numRuns: runs(2_000) },
    );
  });
});
