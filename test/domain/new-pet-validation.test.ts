import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateNewPet } from '../../src/domain/pets/new-pet-validation.js';
import { MAX_ID, PET_STATUSES } from '../../src/domain/pets/pet.js';
import { runs } from '../support/property-runs.js';

const errorOf = (input: unknown) => {
  const result = validateNewPet(input);
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.value)}`);
  return result.error;
};

const isControl = (codePoint: number): boolean => codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f);
const isSurrogate = (codePoint: number): boolean => codePoint >= 0xd800 && codePoint <= 0xdfff;

/** The test's own reading of "visible": not white space, not rendered invisibly by Unicode's rule, not the blank Braille pattern. */
const VISIBLE = /[^\s\p{Default_Ignorable_Code_Point}\u2800]/u;
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\u00ad', '\u3164', '\ufe0f', '\u2800', '\u180e', '\u{e0020}'];

/** Any code point a name may hold: biased by fast-check towards ASCII and the extremes. */
const nameCharArb = fc
  .integer({ min: 0, max: 0x10ffff })
  .filter((codePoint) => !isControl(codePoint) && !isSurrogate(codePoint))
  .map((codePoint) => String.fromCodePoint(codePoint));
/** A name as stored: 1..100 code points with nothing for trim() to remove. */
const storedNameArb = fc
  .array(nameCharArb, { minLength: 1, maxLength: 100 })
  .map((chars) => chars.join(''))
  .filter((name) => name.trim() === name && name.length > 0 && VISIBLE.test(name));
const paddingArb = fc
  .array(fc.constantFrom(' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff'), { maxLength: 4 })
  .map((chars) => chars.join(''));
const categoryIdArb = fc.integer({ min: 1, max: MAX_ID });
const statusArb = fc.constantFrom(...PET_STATUSES);

const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()), fc.object());
const invalidNameArb = fc.oneof(
  notAString,
  paddingArb,
  fc.array(nameCharArb, { minLength: 101, maxLength: 130 }).map((chars) => chars.join('')).filter((name) => Array.from(name.trim()).length > 100),
  fc
    .tuple(storedNameArb, fc.integer({ min: 0, max: 0x9f }).filter(isControl), fc.nat())
    .map(([name, control, at]) => {
      const chars = Array.from(name);
      chars.splice(1 + (at % chars.length), 0, String.fromCodePoint(control));
      // Framed by letters, so trim() cannot remove it.
      return `x${chars.join('')}y`;
    }),
  fc.tuple(storedNameArb, fc.integer({ min: 0xd800, max: 0xdfff })).map(([name, half]) => `a${String.fromCharCode(half)}${name}`),
  // Only invisible characters, between white space of any kind.
  fc.tuple(paddingArb, fc.array(fc.constantFrom(...INVISIBLE, ' ', '\u3000'), { minLength: 1, maxLength: 20 }), paddingArb)
    .filter(([, chars]) => chars.some((char) => char.trim() !== ''))
    .map(([before, chars, after]) => before + chars.join('') + after),
);
const invalidCategoryIdArb = fc.oneof(
  fc.integer({ max: 0 }),
  fc.double({ noNaN: false }).filter((value) => !Number.isSafeInteger(value) || value < 1),
  fc.double({ min: 2 ** 53, noNaN: true }),
  fc.integer({ min: 1 }).map(String),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer({ min: 1 })),
);
const invalidStatusArb = fc.oneof(
  fc.string().filter((value) => !(PET_STATUSES as readonly string[]).includes(value)),
  fc.constantFrom('Available', 'SOLD', ' pending', 'sold ', ''),
  fc.constant(null),
  fc.integer(),
  fc.array(statusArb, { minLength: 1 }),
);
const unknownFieldArb = fc.string().filter((key) => !['name', 'categoryId', 'status'].includes(key));

describe('validateNewPet', () => {
  it('accepts a minimal body and defaults status to available', () => {
    expect(validateNewPet({ name: 'Rex', categoryId: 1 })).toEqual({
      ok: true,
      value: { name: 'Rex', categoryId: 1, status: 'available' },
    });
  });

  it('stores the name trimmed and counts code points, not UTF-16 units', () => {
    expect(validateNewPet({ name: '  Rex \n', categoryId: 1, status: 'sold' })).toEqual({
      ok: true,
      value: { name: 'Rex', categoryId: 1, status: 'sold' },
    });
    const hundredCats = '🐈'.repeat(100);
    expect(validateNewPet({ name: hundredCats, categoryId: 1 })).toMatchObject({ ok: true, value: { name: hundredCats } });
    expect(errorOf({ name: '🐈'.repeat(101), categoryId: 1 }).field).toBe('name');
  });

  it('treats a JSON number with an integer value as an integer: 3.0 is 3', () => {
    expect(validateNewPet(JSON.parse('{"name":"Rex","categoryId":3.0}'))).toMatchObject({ ok: true, value: { categoryId: 3 } });
    expect(validateNewPet(JSON.parse('{"name":"Rex","categoryId":9007199254740991}'))).toMatchObject({
      ok: true,
      value: { categoryId: MAX_ID },
    });
  });

  it.each([1.5, -1, 0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3', null, true])(
    'rejects categoryId %s',
    (categoryId) => {
      expect(errorOf({ name: 'Rex', categoryId })).toEqual({
        code: 'invalid_request',
        field: 'categoryId',
        message: `categoryId must be an integer from 1 to ${MAX_ID}`,
      });
    },
  );

  it('rejects a categoryId past 2^53-1 that JSON.parse would round', () => {
    expect(errorOf(JSON.parse('{"name":"Rex","categoryId":9007199254740993}')).field).toBe('categoryId');
  });

  it.each(['', '   ', '\t\n', 'x'.repeat(101), 42, null, ['Rex'], { first: 'Rex' }])('rejects name %j', (name) => {
    expect(errorOf({ name, categoryId: 1 })).toEqual({
      code: 'invalid_request',
      field: 'name',
      message: 'name must be a string of 1 to 100 characters',
    });
  });

  it.each(['Re\u0000x', 'Re\u001fx', 'Re\u007fx', 'Re\u0080x', 'Re\u009fx', 'Re\nx'])('rejects a control character in name %j', (name) => {
    expect(errorOf({ name, categoryId: 1 })).toEqual({
      code: 'invalid_request',
      field: 'name',
      message: 'name must not contain control characters',
    });
  });

  it.each([...INVISIBLE, '\u200b\u200b\u200b', ' \u200b \u2060 ', '\u3164\u3164'])('rejects the name %j, made only of invisible characters', (name) => {
    expect(errorOf({ name, categoryId: 1 })).toEqual({ code: 'invalid_request', field: 'name', message: 'name must hold at least one visible character' });
  });

  it.each(['\u200bRex', 'R\u200de\u200dx', '\u0301', '\u0600', '\u00a0x\u00a0'])('accepts the name %j, which holds a visible character', (name) => {
    expect(validateNewPet({ name, categoryId: 1 })).toMatchObject({ ok: true, value: { name: name.trim() } });
  });

  it('rejects a name holding an unpaired surrogate, which no UTF-8 store could keep', () => {
    expect(errorOf({ name: 'Re\ud800x', categoryId: 1 })).toMatchObject({ field: 'name', message: expect.stringContaining('name') });
    expect(errorOf({ name: 'Rex\udc00', categoryId: 1 }).field).toBe('name');
  });

  it('names each missing required field', () => {
    expect(errorOf({ categoryId: 1 })).toEqual({ code: 'invalid_request', field: 'name', message: 'name is required' });
    expect(errorOf({ name: 'Rex' })).toEqual({ code: 'invalid_request', field: 'categoryId', message: 'categoryId is required' });
  });

  it.each(['AVAILABLE', '', 'adopted', null, 1])('rejects status %j', (status) => {
    expect(errorOf({ name: 'Rex', categoryId: 1, status })).toEqual({
      code: 'invalid_request',
      field: 'status',
      message: 'status must be one of available, pending, sold',
    });
  });

  it('rejects any field besides name, categoryId and status, id included', () => {
    expect(errorOf({ id: 1, name: 'Rex', categoryId: 1 })).toEqual({
      code: 'invalid_request',
      field: 'id',
      message: 'unknown field: id',
    });
    expect(errorOf(JSON.parse('{"name":"Rex","categoryId":1,"__proto__":{"id":1}}')).field).toBe('__proto__');
    expect(errorOf({ name: 'Rex', categoryId: 1, tags: [] }).message).toBe('unknown field: tags');
  });

  it('reports unknown fields first, then name, categoryId and status', () => {
    expect(errorOf({ status: 'x', categoryId: 0, name: '', id: 1 }).field).toBe('id');
    expect(errorOf({ status: 'x', categoryId: 0, name: '' }).field).toBe('name');
    expect(errorOf({ status: 'x', categoryId: 0, name: 'Rex' }).field).toBe('categoryId');
    expect(errorOf({ status: 'x', categoryId: 1, name: 'Rex' }).field).toBe('status');
  });

  it.each([null, [], [{ name: 'Rex', categoryId: 1 }], 'Rex', 1, true, undefined])('rejects a body that is not a JSON object: %j', (body) => {
    expect(errorOf(body)).toEqual({ code: 'invalid_request', field: 'body', message: 'body must be a JSON object' });
  });

  it('every valid NewPet is accepted, stored trimmed', () => {
    fc.assert(
      fc.property(
        storedNameArb,
        paddingArb,
        paddingArb,
        categoryIdArb,
        fc.option(statusArb, { nil: undefined }),
        (name, before, after, categoryId, status) => {
          const body = status === undefined ? { name: `${before}${name}${after}`, categoryId } : { name: `${before}${name}${after}`, categoryId, status };
          // What arrives over HTTP has been through JSON.
          expect(validateNewPet(JSON.parse(JSON.stringify(body)))).toEqual({
            ok: true,
            value: { name, categoryId, status: status ?? 'available' },
          });
        },
      ),
      { numRuns: runs(5_000) },
    );
  });

  it('every invalid field is rejected with its name in the field and the message', () => {
    const faultArb = fc.oneof(
      invalidNameArb.map((value) => ({ field: 'name', value })),
      invalidCategoryIdArb.map((value) => ({ field: 'categoryId', value })),
      invalidStatusArb.map((value) => ({ field: 'status', value })),
      fc.tuple(unknownFieldArb, fc.anything()).map(([field, value]) => ({ field, value })),
    );
    fc.assert(
      fc.property(storedNameArb, categoryIdArb, statusArb, faultArb, (name, categoryId, status, fault) => {
        const body: Record<string, unknown> = { name, categoryId, status };
        Object.defineProperty(body, fault.field, { value: fault.value, enumerable: true, configurable: true, writable: true });
        const error = errorOf(body);
        expect(error.code).toBe('invalid_request');
        expect(error.field).toBe(fault.field);
        expect(error.message).toContain(fault.field);
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('with several invalid fields, the first in the order unknown, name, categoryId, status is reported', () => {
    fc.assert(
      fc.property(
        fc.option(unknownFieldArb, { nil: undefined }),
        fc.option(invalidNameArb, { nil: undefined }),
        fc.option(invalidCategoryIdArb, { nil: undefined }),
        fc.option(invalidStatusArb, { nil: undefined }),
        (unknownField, name, categoryId, status) => {
          const body: Record<string, unknown> = {
            name: name === undefined ? 'Rex' : name,
            categoryId: categoryId === undefined ? 1 : categoryId,
            status: status === undefined ? 'sold' : status,
          };
          if (unknownField !== undefined) Object.defineProperty(body, unknownField, { value: 1, enumerable: true });
          const expected = unknownField ?? (name !== undefined ? 'name' : categoryId !== undefined ? 'categoryId' : status !== undefined ? 'status' : undefined);
          const result = validateNewPet(body);
          expect(result.ok ? undefined : result.error.field).toBe(expected);
        },
      ),
      { numRuns: runs(5_000) },
    );
  });

  it('a body that is not a JSON object is rejected, whatever it holds', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(fc.anything()), fc.string(), fc.double(), fc.boolean(), fc.constant(null), fc.bigInt()),
        (body) => {
          expect(errorOf(body).field).toBe('body');
        },
      ),
      { numRuns: runs(2_000) },
    );
  });
});

describe('validateNewPet: the statuses of the interface', () => {
  it('accepts every PetStatus, whoever creates the pet: the interface allows each (createPet answers 201)', () => {
    for (const status of PET_STATUSES) {
      expect(validateNewPet({ name: 'Rex', categoryId: 1, status })).toEqual({ ok: true, value: { name: 'Rex', categoryId: 1, status } });
    }
  });
});
