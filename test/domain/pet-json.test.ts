import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PET_STATUSES, type Pet } from '../../src/domain/pets/pet.js';
import { petJson } from '../../src/domain/pets/pet-json.js';

const nameOf = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  // Every UTF-16 unit, lone surrogates, quotes, backslashes and controls included.
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 40 }),
  fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00', '🐈', 'Émile'),
);

const pet: fc.Arbitrary<Pet> = fc.record({
  id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  name: nameOf,
  categoryId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  status: fc.constantFrom(...PET_STATUSES),
});

describe('petJson, the hand-written pet serializer', () => {
  it('writes exactly what JSON.stringify writes for any pet, whatever its name', () => {
    fc.assert(
      fc.property(pet, (one) => petJson(one) === JSON.stringify(one)),
      { numRuns: 20_000 },
    );
  });

  it('escapes what JSON must escape', () => {
    const tricky: Pet = { id: 1, name: 'a"b\\c\u0001\ud800', categoryId: 2, status: 'sold' };
    expect(JSON.parse(petJson(tricky))).toEqual(tricky);
    expect(petJson(tricky)).toBe('{"id":1,"name":"a\\"b\\\\c\\u0001\\ud800","categoryId":2,"status":"sold"}');
  });
});
