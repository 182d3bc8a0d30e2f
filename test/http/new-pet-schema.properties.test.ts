import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { NewPetBody, PetBody } from '../../src/adapters/http/contract/schemas.js';
import { validateNewPet } from '../../src/domain/pets/new-pet-validation.js';
import { MAX_ID, PET_STATUSES, type Pet, type PetStatus } from '../../src/domain/pets/pet.js';
import { validatorAt } from '../support/openapi-validator.js';
import { runs } from '../support/property-runs.js';

const schemaAccepts = validatorAt('/components/schemas/NewPet');

/** Characters around every boundary of the name rule: whitespace trim() removes, control characters, surrogates, astral code points. */
const nameChar = fc.oneof(
  fc.constantFrom(' ', '\t', '\n', '\r', '\v', '\f', '\u0085', '\u00a0', '\u1680', '\u2028', '\u2029', '\u3000', '\ufeff', '\u200b'),
  // Characters rendered invisibly: a name of nothing else is refused.
  fc.constantFrom('\u200c', '\u200d', '\u2060', '\u00ad', '\u3164', '\ufe0f', '\u2800', '\u{e0020}'),
  fc.constantFrom('\u0000', '\u001f', '\u007f', '\u009f', '\ud800', '\udfff', '\ud83d\ude00', 'a', 'Z', 'é', '-'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const padding = fc.array(fc.constantFrom(' ', '\t', '\n', '\u3000', '\ufeff', '\u2028'), { maxLength: 3 }).map((chars) => chars.join(''));
const name = fc.oneof(
  fc.tuple(padding, fc.array(nameChar, { maxLength: 8 }), padding).map(([before, chars, after]) => before + chars.join('') + after),
  // Lengths around the limit of 100 code points, padded or not.
  fc
    .tuple(padding, fc.integer({ min: 97, max: 103 }), fc.constantFrom('a', '\ud83d\ude00', 'a b'), padding)
    .map(([before, length, unit, after]) => before + Array.from({ length }, () => unit).join('').slice(0, length * unit.length) + after),
  fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string(), { maxLength: 2 })),
);
const categoryId = fc.oneof(
  fc.integer({ min: 1, max: 1000 }),
  fc.constantFrom(0, -1, 1.5, MAX_ID, MAX_ID + 1, 2 ** 53 + 2, 1e300, Number.MIN_VALUE, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom('1', '', null, true, [1], { id: 1 }),
);
const status = fc.oneof(fc.constantFrom<unknown>(...PET_STATUSES), fc.constantFrom('Available', 'sold ', '', null, 1));
const extraKey = fc.constantFrom('id', 'tags', '__proto__', 'constructor', 'Name', 'status ');

const body = fc.oneof(
  { weight: 10, arbitrary: fc.record({ name, categoryId, status }, { requiredKeys: [] }) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.record({ name, categoryId, status }, { requiredKeys: ['name', 'categoryId'] }), fc.option(extraKey, { nil: undefined }))
      // Parsed from JSON text, as the server receives it: `__proto__` becomes an own member.
      .map(([fields, extra]) => JSON.parse(JSON.stringify(fields).replace(/^\{/, extra === undefined ? '{' : `{"${extra}":1,`)) as unknown),
  },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.array(fc.integer()), fc.string(), fc.integer()) },
);

describe('the NewPet body schema of createPet', () => {
  it('accepts exactly the bodies validateNewPet accepts', () => {
    fc.assert(
      fc.property(body, (input) => {
        const accepted = validateNewPet(input).ok;
        expect(schemaAccepts(input), `${JSON.stringify(input)}: the domain ${accepted ? 'accepts' : 'refuses'} it`).toBe(accepted);
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('accepts the boundary bodies the domain accepts, and refuses the ones it refuses', () => {
    const cases: unknown[] = [
      { name: 'x'.repeat(100), categoryId: 1 },
      { name: 'x'.repeat(101), categoryId: 1 },
      { name: `  ${'x'.repeat(100)}\t\n`, categoryId: 1 },
      { name: '\ud83d\ude00'.repeat(100), categoryId: MAX_ID },
      { name: 'a\tb', categoryId: 1 },
      { name: ' \u3000 ', categoryId: 1 },
      { name: '\u200b\u200b', categoryId: 1 },
      { name: ' \u2060\u3164 ', categoryId: 1 },
      { name: '\u200bRex', categoryId: 1 },
      { name: 'Rex\ud800', categoryId: 1 },
      { name: 'Rex', categoryId: MAX_ID + 1 },
      { name: 'Rex', categoryId: 3.0, status: 'sold' },
    ];
    for (const input of cases) expect(schemaAccepts(input), JSON.stringify(input)).toBe(validateNewPet(input).ok);
  });

  it('describes the types the domain uses: Pet, and NewPet with an optional status', () => {
    expectTypeOf<PetBody>().toEqualTypeOf<{ id: number; name: string; categoryId: number; status: PetStatus }>();
    expectTypeOf<Pet>().toMatchTypeOf<PetBody>();
    expectTypeOf<PetBody>().toMatchTypeOf<Pet>();
    expectTypeOf<NewPetBody>().toEqualTypeOf<{ name: string; categoryId: number; status?: PetStatus }>();
  });
});
