import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PET_STATUSES, type Pet } from '../../src/domain/pets/pet.js';
import { petJson, petsOfJson } from '../../src/domain/pets/pet-json.js';
import { runs } from '../support/property-runs.js';

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
      { numRuns: runs(20_000) },
    );
  });

  it('escapes what JSON must escape', () => {
    const tricky: Pet = { id: 1, name: 'a"b\\c\u0001\ud800', categoryId: 2, status: 'sold' };
    expect(JSON.parse(petJson(tricky))).toEqual(tricky);
    expect(petJson(tricky)).toBe('{"id":1,"name":"a\\"b\\\\c\\u0001\\ud800","categoryId":2,"status":"sold"}');
  });
});

describe('petsOfJson, a page read back', () => {
  it('gives the pets of any page joined from petJson, frozen', () => {
    fc.assert(
      fc.property(fc.array(pet, { maxLength: 20 }), (pets) => {
        const read = petsOfJson('[' + pets.map(petJson).join(',') + ']');
        expect(read).toEqual(pets);
        expect(read.every((one) => Object.isFrozen(one))).toBe(true);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('refuses JSON that is not an array of pets, as only a tampered store could hold', () => {
    for (const json of ['{}', '[1]', '[{"id":1,"name":"Rex","categoryId":2}]', '[{"id":"1","name":"Rex","categoryId":2,"status":"sold"}]', '[{"id":1,"name":"Rex","categoryId":2,"status":"lost"}]']) {
      expect(() => petsOfJson(json)).toThrow();
    }
  });
});
