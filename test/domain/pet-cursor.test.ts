import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PageCursor } from '../../src/domain/paging/page-cursor.js';
import { MAX_ID, PET_STATUSES, type PetStatus } from '../../src/domain/pets/pet.js';
import { petCursors } from '../../src/domain/pets/pet-cursor.js';
import { runs } from '../support/property-runs.js';

const base64Url = (text: string): string => Buffer.from(text, 'latin1').toString('base64url');

const cursorArb: fc.Arbitrary<PageCursor<PetStatus>> = fc
  .tuple(fc.integer({ min: 1, max: MAX_ID }), fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }))
  .map(([afterId, status]) => (status === undefined ? { afterId } : { afterId, status }));

const rejected = { ok: false, error: { code: 'invalid_request', field: 'cursor', message: 'cursor is not one issued by this service' } };

describe('pet cursor', () => {
  it('every cursor decodes to the position and status filter it was issued for', () => {
    fc.assert(
      fc.property(cursorArb, (cursor) => {
        expect(petCursors.decode(petCursors.encode(cursor))).toEqual({ ok: true, value: cursor });
      }),
      { numRuns: runs(10_000) },
    );
  });

  it('a cursor is opaque base64url text', () => {
    fc.assert(
      fc.property(cursorArb, (cursor) => {
        expect(petCursors.encode(cursor)).toMatch(/^[A-Za-z0-9_-]+$/);
      }),
      { numRuns: runs(1_000) },
    );
  });

  it.each([
    ['empty', ''],
    ['not base64url', '!!!!'],
    ['padded', `${base64Url('v1.5')}=`],
    ['another version', base64Url('v2.5')],
    ['no id', base64Url('v1.')],
    ['id zero', base64Url('v1.0')],
    ['a leading zero', base64Url('v1.05')],
    ['a negative id', base64Url('v1.-5')],
    ['a fractional id', base64Url('v1.5.5')],
    ['an exponent', base64Url('v1.5e1')],
    ['an id past 2^53-1', base64Url('v1.9007199254740992')],
    ['an unknown status', base64Url('v1.5.adopted')],
    ['an empty status', base64Url('v1.5.')],
    ['trailing garbage', base64Url('v1.5.sold.x')],
    ['a trailing newline', base64Url('v1.5\n')],
    ['leading whitespace', base64Url(' v1.5')],
    ['surrounding whitespace in the text', ` ${petCursors.encode({ afterId: 5 })}`],
    ['far too long', 'A'.repeat(10_000)],
  ])('rejects a cursor with %s', (_, text) => {
    expect(petCursors.decode(text)).toEqual(rejected);
  });

  it('rejects another base64url spelling of an issued cursor', () => {
    const issued = petCursors.encode({ afterId: 5 }); // 'v1.5': 4 bytes, so the last character carries 4 unused bits
    const lastIndex = issued.length - 1;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = issued.slice(0, lastIndex) + alphabet.charAt(alphabet.indexOf(issued.charAt(lastIndex)) + 1);
    expect(Buffer.from(respelled, 'base64url').toString('latin1')).toBe('v1.5');
    expect(petCursors.decode(respelled)).toEqual(rejected);
  });

  it('a cursor not issued by the catalog is rejected: only what petCursors.encode returns decodes', () => {
    const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    const mutated = fc
      .tuple(cursorArb, fc.nat(), alphabet, fc.constantFrom('replace', 'insert', 'delete'))
      .map(([cursor, at, char, edit]) => {
        const text = petCursors.encode(cursor);
        const index = at % text.length;
        if (edit === 'replace') return text.slice(0, index) + char + text.slice(index + 1);
        if (edit === 'insert') return text.slice(0, index) + char + text.slice(index);
        return text.slice(0, index) + text.slice(index + 1);
      });
    const nearlyValidText = fc
      .tuple(
        fc.constantFrom('v1.', 'v1', 'v0.', 'V1.', 'v1..', ''),
        fc.oneof(fc.bigInt({ min: -10n, max: 2n ** 64n }).map(String), fc.string({ maxLength: 4 })),
        fc.constantFrom('', '.available', '.pending', '.sold', '.Sold', '.', '.sold.', ' '),
      )
      .map(([prefix, id, suffix]) => base64Url(`${prefix}${id}${suffix}`));
    const candidates = fc.oneof(
      fc.string(),
      fc.string({ unit: alphabet, maxLength: 44 }),
      mutated,
      nearlyValidText,
    );
    let accepted = 0;
    fc.assert(
      fc.property(candidates, (text) => {
        const decoded = petCursors.decode(text);
        if (decoded.ok) {
          accepted += 1;
          expect(petCursors.encode(decoded.value)).toBe(text);
        } else {
          expect(decoded).toEqual(rejected);
        }
      }),
      { numRuns: runs(20_000) },
    );
    // The candidates include genuine cursors too, so both branches above are exercised.
    expect(accepted).toBeGreaterThan(0);
  });
});
