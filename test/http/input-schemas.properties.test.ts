import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIdempotencyKey } from '../../src/adapters/http/wire/idempotency-key.js';
import { requestIdOf } from '../../src/adapters/http/wire/request-id.js';
import { orderCursors } from '../../src/domain/orders/order-cursor.js';
import { validateNewOrder, validateOrderUpdate } from '../../src/domain/orders/order-input.js';
import { ORDER_STATUSES } from '../../src/domain/orders/order.js';
import { STAFF_STATUSES } from '../../src/domain/orders/order-status-machine.js';
import { MAX_ID, parseId } from '../../src/domain/paging/ids.js';
import { parseListQuery } from '../../src/domain/paging/list-query.js';
import type { CursorCodec } from '../../src/domain/paging/page-cursor.js';
import { parsePageLimit } from '../../src/domain/paging/page-limits.js';
import { petCursors } from '../../src/domain/pets/pet-cursor.js';
import { parsePetId } from '../../src/domain/pets/pet-id.js';
import { PET_STATUSES } from '../../src/domain/pets/pet.js';
import { validatePetUpdate } from '../../src/domain/pets/pet-update.js';
import { openApiDocument, resolveInDocument, validatorAt } from '../support/openapi-validator.js';
import { runs, share } from '../support/property-runs.js';

/*
 * The inputs the served OpenAPI document declares, held to the parsers that decide what the
 * server accepts: for every input, the document's schema and the parser give the same verdict.
 *
 * How a parameter value maps to the instance its schema validates (OpenAPI 3.1 leaves this open):
 * - absent: accepted exactly when the parameter is not `required`;
 * - an array (a query key repeated, `style: form`): validated as the array, so a scalar schema refuses it;
 * - text, for an `integer` schema: the parameter's description says "plain decimal digits", and
 *   docs/decisions.md reads leading zeros as decimal (`007` is 7): text is accepted exactly when it
 *   is an optional '-' and ASCII digits (no '+', whitespace, fraction, exponent or other digits)
 *   whose integer the schema accepts. An integer beyond 2^53 maps to the nearest double, which is
 *   at least 2^53 and so on the same side as the integer of every safe bound (beyond 1.8e308 it is
 *   Infinity, which no integer schema accepts);
 * - text, for a `string` schema: the text itself;
 * - anything else (a JSON value an embedder passes through the domain API): validated as it is.
 */

type Json = Readonly<Record<string, unknown>>;
type ParameterLocation = 'query' | 'path' | 'header';

interface DocumentedParameter {
  /** `listPets`, `listPetsHead`, ... */
  readonly operationId: string;
  readonly schemaPointer: string;
  readonly required: boolean;
  readonly isInteger: boolean;
}

const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');
const paths = openApiDocument.paths as Readonly<Record<string, Readonly<Record<string, Json>>>>;

/** The parameter `name` in `location` of each operation (and of its HEAD twin), as the document declares it. */
function documentedParameters(operationIds: readonly string[], name: string, location: ParameterLocation): DocumentedParameter[] {
  const found: DocumentedParameter[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const operationId = String(operation['operationId']);
      if (!operationIds.some((id) => operationId === id || operationId === `${id}Head`)) continue;
      const parameters = (operation['parameters'] as readonly unknown[] | undefined) ?? [];
      parameters.forEach((_, index) => {
        const { node, pointer } = resolveInDocument(`/paths/${escapeToken(path)}/${method}/parameters/${index}`);
        if (node['name'] !== name || node['in'] !== location) return;
        const schemaPointer = resolveInDocument(`${pointer}/schema`).pointer;
        found.push({
          operationId,
          schemaPointer,
          required: node['required'] === true,
          isInteger: resolveInDocument(schemaPointer).node['type'] === 'integer',
        });
      });
    }
  }
  for (const id of operationIds) {
    if (!found.some((parameter) => parameter.operationId === id)) throw new Error(`${id} declares no ${location} parameter ${name}`);
  }
  return found;
}

const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** Whether the document accepts `value` for the parameter, read as the comment at the top says. */
function documentAccepts(parameter: DocumentedParameter, value: unknown): boolean {
  if (value === undefined) return !parameter.required;
  const validate = validatorAt(parameter.schemaPointer);
  if (typeof value === 'string' && parameter.isInteger) return DECIMAL_INTEGER.test(value) && validate(Number(value));
  return validate(value);
}

const show = (value: unknown): string => {
  if (value === undefined) return 'absent';
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 120)}... (${text.length} chars)` : text;
};

/** Asserts every documented parameter gives `value` the verdict the parser gives it. */
function expectSameVerdict(parameters: readonly DocumentedParameter[], value: unknown, parserAccepts: boolean, parser: string): void {
  for (const parameter of parameters) {
    const documented = documentAccepts(parameter, value);
    expect(
      documented,
      `${show(value)}: ${parser} ${parserAccepts ? 'accepts' : 'refuses'} it, the schema at ${parameter.schemaPointer} (${parameter.operationId}) ${documented ? 'accepts' : 'refuses'} it`,
    ).toBe(parserAccepts);
  }
}

// ---------------------------------------------------------------------------------------------
// Generators

/** Digits of other scripts: Arabic-Indic, Devanagari, fullwidth, mathematical bold (astral). */
const UNICODE_ZEROS = [0x0660, 0x0966, 0xff10, 0x1d7ce];
const foreignDigits = (text: string, zero: number): string =>
  text.replace(/[0-9]/g, (digit) => String.fromCodePoint(zero + Number(digit)));

const TWO_53 = 2n ** 53n;

/** The integer values at every boundary of the page limit and of ids, as bigints. */
const integerCore = fc.oneof(
  fc.bigInt({ min: -3n, max: 103n }),
  fc.bigInt({ min: TWO_53 - 4n, max: TWO_53 + 4n }),
  fc.bigInt({ min: -(TWO_53 + 4n), max: -(TWO_53 - 4n) }),
  fc.constantFrom(0n, 1n, 99n, 100n, 101n, 2n ** 31n, 2n ** 32n, 2n ** 63n, 2n ** 64n, 10n ** 21n, 10n ** 308n, 10n ** 309n, 10n ** 400n),
  fc.bigInt({ min: 1n, max: TWO_53 }),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
);

/** Query or path text around every boundary: canonical integers, and every way text can nearly be one. */
const integerText = fc.oneof(
  { weight: 6, arbitrary: integerCore.map(String) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '', '', '0', '00', '000000000000000000000', '+', '-', '+0', '-0', ' ', '\t', '\n', '\u00a0', '\ufeff', '\u3000'),
        integerCore.map((n) => String(n < 0n ? -n : n)),
        fc.constantFrom('', '', '', '.0', '.', '.5', '.00', 'e0', 'E1', 'e+2', 'e-0', '.0e1', ' ', '\n', '\u0000', '%20', 'n', '_0'),
      )
      .map(([before, digits, after]) => before + digits + after),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(integerCore.map((n) => String(n < 0n ? -n : n)), fc.constantFrom(...UNICODE_ZEROS), fc.boolean())
      // Every digit foreign, or only the last one.
      .map(([digits, zero, all]) => (all ? foreignDigits(digits, zero) : digits.slice(0, -1) + foreignDigits(digits.slice(-1), zero))),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '', ' ', '0x10', '0X1A', '0o7', '0b1', '1_000', '1,000', '1 000', 'Infinity', '-Infinity', 'NaN', 'null', 'true', '[]', '1n',
      '²', '½', 'Ⅻ', '٫', '\u0661\u0660', '１００', '𝟏', '10e1', '1e2', '0.1e3', '9007199254740991.0', '9.007199254740991e15',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[-+0-9.eE ]{0,6}$/) },
);

/** What reaches a parser besides text: nothing, repeated query keys, and JSON values an embedder passes. */
const otherValue = fc.oneof(
  fc.constant(undefined),
  fc.array(integerText, { minLength: 0, maxLength: 3 }),
  fc.constantFrom<unknown>(1, 20, 100, 101, 0, -1, -0, 1.5, 100.5, MAX_ID, MAX_ID + 1, 2 ** 53 + 2, 1e300, Number.MIN_VALUE),
  fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null, true, false, {}, { limit: 1 }, ['1']),
  fc.double(),
  fc.integer(),
);

const limitValue = fc.oneof({ weight: 5, arbitrary: integerText }, { weight: 2, arbitrary: otherValue });

// ---------------------------------------------------------------------------------------------

describe('the limit query parameter of listPets and listOrders', () => {
  const parameters = documentedParameters(['listPets', 'listOrders'], 'limit', 'query');
  const verdict = (value: unknown) => expectSameVerdict(parameters, value, parsePageLimit(value).ok, 'parsePageLimit');

  it('accepts exactly the limits parsePageLimit accepts: decimal text of 1..100, absent, or such a number', () => {
    fc.assert(fc.property(limitValue, verdict), { numRuns: runs(5_000) });
  });

  it('gives the verdict of parsePageLimit on the boundary limits', () => {
    const cases: unknown[] = [
      undefined, '1', '100', '20', '0', '101', '-1', '-0', '+1', '01', '001', '0100', ' 1', '1 ', '\t1', '1\n', '1e1', '1E2', '1.0', '1.', '.5',
      '0x10', '', '١', '٠١', '５', '𝟓', '1_0', String(2 ** 53 - 1), String(2 ** 53), `1${'0'.repeat(400)}`, ['1'], ['1', '2'], [],
      1, 100, 0, 101, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, null, true,
    ];
    for (const value of cases) verdict(value);
  });
});

const statusValue = (statuses: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<unknown>(...statuses, ...PET_STATUSES, ...ORDER_STATUSES) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...statuses, ...PET_STATUSES, ...ORDER_STATUSES),
          fc.constantFrom((s: string) => s.toUpperCase(), (s: string) => s[0]!.toUpperCase() + s.slice(1), (s: string) => ` ${s}`,
            (s: string) => `${s} `, (s: string) => `${s}\u0000`, (s: string) => s.slice(0, -1), (s: string) => `${s}s`,
            (s: string) => s.replace(/[aeo]/, (c) => ({ a: '\u0430', e: '\u0435', o: '\u043e' })[c] ?? c),
            (s: string) => `${s},${s}`, (s: string) => encodeURIComponent(s).replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)),
        )
        .map(([status, change]) => change(status)),
    },
    { weight: 2, arbitrary: fc.constantFrom<unknown>('', ' ', '__proto__', 'constructor', 'toString', 'length', '0', 'null', 'undefined') },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...statuses, 'x'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 0, 1, true, {}, { status: statuses[0] }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );

/** Whether a listing's query with only `status` passes its parser. */
const statusAccepted = <S extends string>(statuses: readonly S[], cursors: CursorCodec<S>, status: unknown): boolean =>
  parseListQuery({ status: status as S }, statuses, cursors).ok;


describe('the status query parameter of listPets and listOrders', () => {
  const petParameters = documentedParameters(['listPets'], 'status', 'query');
  const orderParameters = documentedParameters(['listOrders'], 'status', 'query');
  const petVerdict = (value: unknown) =>
    expectSameVerdict(petParameters, value, statusAccepted(PET_STATUSES, petCursors, value), 'parseListQuery with PET_STATUSES');
  const orderVerdict = (value: unknown) =>
    expectSameVerdict(orderParameters, value, statusAccepted(ORDER_STATUSES, orderCursors, value), 'parseListQuery with ORDER_STATUSES');

  it('listPets accepts exactly the status filters the pet listing accepts: absent or one of PET_STATUSES, once', () => {
    fc.assert(fc.property(statusValue(PET_STATUSES), petVerdict), { numRuns: runs(3_000) });
  });

  it('listOrders accepts exactly the status filters the order listing accepts: absent or one of ORDER_STATUSES, once', () => {
    fc.assert(fc.property(statusValue(ORDER_STATUSES), orderVerdict), { numRuns: runs(3_000) });
  });

  it('gives the verdict of the listings on the boundary statuses', () => {
    const cases: unknown[] = [
      undefined, '', ...PET_STATUSES, ...ORDER_STATUSES, 'Available', 'SOLD', ' sold', 'sold ', 'placed\u0000', 'plac\u0435d', '__proto__',
      'constructor', 'toString', ['sold'], ['sold', 'sold'], ['placed'], [], null, 0,
    ];
    for (const value of cases) {
      petVerdict(value);
      orderVerdict(value);
    }
  });
});

// ---------------------------------------------------------------------------------------------

const LISTINGS = [
  { name: 'listPets', tag: 'v1', statuses: PET_STATUSES as readonly string[], codec: petCursors as CursorCodec<string> },
  { name: 'listOrders', tag: 'o1', statuses: ORDER_STATUSES as readonly string[], codec: orderCursors as CursorCodec<string> },
] as const;

const afterId = fc.oneof(
  fc.integer({ min: 1, max: 200 }),
  fc.constantFrom(1, 9, 10, 99, 100, 2 ** 31, 2 ** 32, 10 ** 15 - 1, 10 ** 15, MAX_ID - 1, MAX_ID),
  fc.integer({ min: 1, max: MAX_ID }),
);
/** Any listing's status, or none: a cursor of one listing may carry the status of the other. */
const cursorStatus = fc.option(fc.constantFrom<string>(...PET_STATUSES, ...ORDER_STATUSES), { nil: undefined });
const issued = (codec: CursorCodec<string>) => fc.tuple(afterId, cursorStatus).map(([id, status]) => codec.encode(status === undefined ? { afterId: id } : { afterId: id, status }));

/** Latin-1 text base64url-encoded the way the codecs do, without node:buffer's leniency. */
const base64Url = (text: string): string => Buffer.from(text, 'latin1').toString('base64url');

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Cursor values around every boundary of the codecs: issued ones, their near misses, and foreign text. */
const cursorValue = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(...LISTINGS.map(({ codec }) => issued(codec))) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.oneof(...LISTINGS.map(({ codec }) => issued(codec))),
        fc.nat(),
        fc.constantFrom(...B64),
        fc.constantFrom('swap', 'append', 'drop', 'pad', 'plus', 'space', 'upper', 'std'),
      )
      .map(([cursor, at, char, change]) => {
        const index = at % cursor.length;
        switch (change) {
          case 'swap': // Another spelling of the last bits, or another text.
            return cursor.slice(0, index) + char + cursor.slice(index + 1);
          case 'append':
            return cursor + char;
          case 'drop':
            return cursor.slice(0, -1);
          case 'pad':
            return `${cursor}${'='.repeat((4 - (cursor.length % 4)) % 4 || 4)}`;
          case 'plus':
            return cursor.replaceAll('-', '+').replaceAll('_', '/');
          case 'space':
            return ` ${cursor}`;
          case 'upper':
            return cursor.toUpperCase();
          default:
            return encodeURIComponent(cursor).replace(/^./, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
        }
      }),
  },
  {
    weight: 4,
    // Text the codecs nearly issue: leading zeros, unsafe ids, wrong tags, trailing parts.
    arbitrary: fc
      .tuple(
        fc.constantFrom('v1', 'o1', 'v2', 'V1', '', 'v1.', 'o1.o1'),
        fc.oneof(afterId.map(String), fc.constantFrom('0', '01', '-1', '+1', '1.0', '1e3', String(2 ** 53), '99999999999999999', '١', '')),
        fc.constantFrom('', '.available', '.placed', '.sold', '.cancelled', '.', '.x', '.available.sold', '.Sold', '\n', '.placed\u0000'),
      )
      .map(([tag, id, tail]) => base64Url(`${tag}.${id}${tail}`)),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('', '=', 'A', 'AA', 'AAA', 'AAAA', 'x'.repeat(10_000), undefined, null, 1, ['dj', 'dj']) },
  { weight: 1, arbitrary: fc.array(fc.oneof(...LISTINGS.map(({ codec }) => issued(codec))), { minLength: 1, maxLength: 2 }) },
);

/** Whether some query of the listing with this cursor (whatever its status filter) passes its parser. */
const cursorAccepted = (statuses: readonly string[], codec: CursorCodec<string>, cursor: unknown): boolean =>
  [undefined, ...statuses].some((status) => parseListQuery({ cursor: cursor as string, ...(status === undefined ? {} : { status }) }, statuses, codec).ok);

describe('the cursor query parameter of listPets and listOrders', () => {
  for (const { name, tag, statuses, codec } of LISTINGS) {
    const parameters = documentedParameters([name], 'cursor', 'query');

    it(`${name}: every cursor its codec (tag ${tag}) issues for a valid id and status has the documented shape`, () => {
      fc.assert(
        fc.property(
          afterId,
          fc.option(fc.constantFrom(...statuses), { nil: undefined }),
          (id, status) => {
            const cursor = codec.encode(status === undefined ? { afterId: id } : { afterId: id, status });
            expect(codec.decode(cursor), cursor).toEqual({ ok: true, value: status === undefined ? { afterId: id } : { afterId: id, status } });
            for (const parameter of parameters) expect(documentAccepts(parameter, cursor), `${cursor} (${parameter.schemaPointer})`).toBe(true);
          },
        ),
        { numRuns: runs(3_000) },
      );
    });

    it(`${name}: every cursor value the listing accepts has the documented shape (necessary, not sufficient: a value of that shape may still be refused)`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(cursorValue, (cursor) => {
          if (!cursorAccepted(statuses, codec, cursor)) return;
          accepted += 1;
          for (const parameter of parameters) {
            expect(documentAccepts(parameter, cursor), `${show(cursor)} is accepted by ${name} but refused by ${parameter.schemaPointer}`).toBe(true);
          }
        }),
        { numRuns: runs(5_000) },
      );
      // Not vacuous: the generator reaches cursors the listing accepts (about one in eight).
      expect(accepted).toBeGreaterThan(share(100));
    });
  }

  it('refuses the boundary cursors the listings refuse, and documents the shape of the ones they accept', () => {
    const cases: unknown[] = [
      petCursors.encode({ afterId: 1 }),
      petCursors.encode({ afterId: MAX_ID, status: 'available' }),
      orderCursors.encode({ afterId: MAX_ID, status: 'cancelled' }),
      base64Url(`v1.${MAX_ID + 1}`),
      base64Url('v1.01'),
      base64Url('o1.0'),
      `${petCursors.encode({ afterId: 1 })}=`,
      '',
      [petCursors.encode({ afterId: 1 })],
    ];
    for (const { name, statuses, codec } of LISTINGS) {
      const parameters = documentedParameters([name], 'cursor', 'query');
      for (const cursor of cases) {
        if (!cursorAccepted(statuses, codec, cursor)) continue;
        for (const parameter of parameters) expect(documentAccepts(parameter, cursor), `${show(cursor)} (${parameter.schemaPointer})`).toBe(true);
      }
    }
    // The arrays of repeated keys are refused by both sides.
    for (const { name, statuses, codec } of LISTINGS) {
      const value = [codec.encode({ afterId: 1 })];
      expectSameVerdict(documentedParameters([name], 'cursor', 'query'), value, cursorAccepted(statuses, codec, value), `${name}'s parseListQuery`);
    }
  });
});

// ---------------------------------------------------------------------------------------------

const idValue = fc.oneof({ weight: 6, arbitrary: integerText }, { weight: 1, arbitrary: otherValue.filter((value) => value !== undefined) });

describe('the petId and orderId path parameters', () => {
  const ID_PARAMETERS = [
    { name: 'petId', operationIds: ['getPet', 'updatePet'], parse: (value: unknown) => parsePetId(value).ok, parser: 'parsePetId' },
    {
      name: 'orderId',
      operationIds: ['getOrder', 'updateOrder', 'cancelOrder'],
      parse: (value: unknown) => parseId('orderId', value).ok,
      parser: "parseId('orderId')",
    },
  ] as const;

  for (const { name, operationIds, parse, parser } of ID_PARAMETERS) {
    const parameters = documentedParameters(operationIds, name, 'path');
    const verdict = (value: unknown) => expectSameVerdict(parameters, value, parse(value), parser);

    it(`${name} (${operationIds.join(', ')}) accepts exactly the ids ${parser} accepts: decimal text of 1..2^53-1`, () => {
      fc.assert(fc.property(idValue, verdict), { numRuns: runs(5_000) });
    });

    it(`${name} gives the verdict of ${parser} on the boundary ids`, () => {
      const cases: unknown[] = [
        '1', '0', '-1', '-0', '+1', '01', '0001', ' 1', '1 ', '1e0', '1.0', '1.', '', '١', '５', '𝟏',
        String(MAX_ID), String(MAX_ID - 1), String(MAX_ID + 1), '9007199254740993', `0${MAX_ID}`, `${MAX_ID}.0`, `1${'0'.repeat(400)}`,
        1, MAX_ID, MAX_ID + 1, 0, 1.5, -0, Number.NaN, null, ['1'],
      ];
      for (const value of cases) verdict(value);
    });
  }
});

// ---------------------------------------------------------------------------------------------

/** A JSON value as text, around every boundary of petId; some spellings JSON.parse rounds or normalizes. */
const petIdText = fc.oneof(
  fc.integer({ min: -2, max: 1_000 }).map(String),
  fc.constantFrom(MAX_ID, MAX_ID - 1, MAX_ID + 1, 2 ** 53 + 2, 1e300, -0, 0.5, 1.5, Number.MIN_VALUE).map((n) => JSON.stringify(n)),
  fc.constantFrom('1.0', '1e0', '1E+0', '10e-1', '-0', '-0.0', '9007199254740993', '9007199254740990.5', '1.0000000000000000001', '1e400', '-1e400'),
  fc.integer({ min: 1, max: MAX_ID }).map(String),
  fc.constantFrom('"1"', '""', 'null', 'true', 'false', '[1]', '{"id":1}', '{}', '[]'),
);
const memberName = (field: string) =>
  fc.constantFrom(field, field, field, '__proto__', 'constructor', 'id', field.toUpperCase(), `${field} `, `${field}\u0000`, '', 'toString');
const jsonObjectText = (members: fc.Arbitrary<readonly [string, string]>) =>
  fc.array(members, { maxLength: 3 }).map((pairs) => `{${pairs.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`);
const notAnObject = fc.constantFrom('null', '[]', '[{"petId":1}]', '1', '"petId"', 'true', '{}');

/** Bodies as the server reads them: JSON text parsed, so `__proto__` is an own member. */
const newOrderBody = fc
  .oneof(
    { weight: 8, arbitrary: petIdText.map((value) => `{"petId":${value}}`) },
    { weight: 6, arbitrary: jsonObjectText(fc.tuple(memberName('petId'), petIdText)) },
    { weight: 1, arbitrary: notAnObject },
  )
  .map((text) => JSON.parse(text) as unknown);

const updateStatusText = fc.oneof(
  fc.constantFrom(...STAFF_STATUSES, ...ORDER_STATUSES, ...PET_STATUSES, 'Approved', 'DELIVERED', ' approved', 'approved ', 'approve', 'deliver').map((s) => JSON.stringify(s)),
  fc.constantFrom('"__proto__"', '"constructor"', '"hasOwnProperty"', '"toString"', '""', '"appr\\u006fved"', '"appr\\u043eved"'),
  fc.constantFrom('null', '1', 'true', '["approved"]', '{"status":"approved"}'),
  fc.string({ maxLength: 10 }).map((s) => JSON.stringify(s)),
);
const orderUpdateBody = fc
  .oneof(
    { weight: 8, arbitrary: updateStatusText.map((value) => `{"status":${value}}`) },
    { weight: 6, arbitrary: jsonObjectText(fc.tuple(memberName('status'), updateStatusText)) },
    { weight: 1, arbitrary: notAnObject },
  )
  .map((text) => JSON.parse(text) as unknown);

/** The pointer of the JSON request body schema of an operation. */
function requestBodyPointer(operationId: string): string {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation['operationId'] === operationId) {
        return resolveInDocument(`/paths/${escapeToken(path)}/${method}/requestBody/content/application~1json/schema`).pointer;
      }
    }
  }
  throw new Error(`no operation ${operationId}`);
}

describe('the request bodies of placeOrder, updateOrder and updatePet', () => {
  const newOrderAccepts = validatorAt(requestBodyPointer('placeOrder'));
  const orderUpdateAccepts = validatorAt(requestBodyPointer('updateOrder'));
  const newOrderVerdict = (body: unknown) => {
    const accepted = validateNewOrder(body).ok;
    expect(newOrderAccepts(body), `${show(body)}: validateNewOrder ${accepted ? 'accepts' : 'refuses'} it`).toBe(accepted);
  };
  const orderUpdateVerdict = (body: unknown) => {
    const accepted = validateOrderUpdate(body).ok;
    expect(orderUpdateAccepts(body), `${show(body)}: validateOrderUpdate ${accepted ? 'accepts' : 'refuses'} it`).toBe(accepted);
  };

  it('the NewOrder body schema accepts exactly the bodies validateNewOrder accepts', () => {
    expect(requestBodyPointer('placeOrder')).toBe('/components/schemas/NewOrder');
    fc.assert(fc.property(newOrderBody, newOrderVerdict), { numRuns: runs(5_000) });
  });

  it('the OrderUpdate body schema accepts exactly the bodies validateOrderUpdate accepts', () => {
    expect(requestBodyPointer('updateOrder')).toBe('/components/schemas/OrderUpdate');
    fc.assert(fc.property(orderUpdateBody, orderUpdateVerdict), { numRuns: runs(5_000) });
  });

  it('the PetUpdate body schema (updatePet) accepts exactly the bodies validatePetUpdate accepts', () => {
    expect(requestBodyPointer('updatePet')).toBe('/components/schemas/PetUpdate');
    const petUpdateAccepts = validatorAt(requestBodyPointer('updatePet'));
    const verdict = (body: unknown) => {
      const accepted = validatePetUpdate(body).ok;
      expect(petUpdateAccepts(body), `${show(body)}: validatePetUpdate ${accepted ? 'accepts' : 'refuses'} it`).toBe(accepted);
    };
    for (const status of PET_STATUSES) verdict({ status });
    fc.assert(fc.property(orderUpdateBody, verdict), { numRuns: runs(5_000) });
  });

  it('gives the verdicts of the validators on the boundary bodies', () => {
    const newOrders = [
      '{"petId":1}', `{"petId":${MAX_ID}}`, `{"petId":${MAX_ID + 1}}`, '{"petId":0}', '{"petId":-0}', '{"petId":1.0}', '{"petId":1.5}',
      '{"petId":1e0}', '{"petId":"1"}', '{"petId":null}', '{}', '{"petId":1,"id":2}', '{"__proto__":1,"petId":1}', '{"petId":1,"petId":2}',
      '{"__proto__":{"petId":1}}', '{"constructor":1,"petId":1}', 'null', '[]', '[1]',
    ];
    for (const text of newOrders) newOrderVerdict(JSON.parse(text));
    const updates = [
      '{"status":"approved"}', '{"status":"delivered"}', '{"status":"placed"}', '{"status":"cancelled"}', '{"status":"Approved"}',
      '{"status":"__proto__"}', '{"status":"constructor"}', '{"status":""}', '{"status":["approved"]}', '{"status":null}', '{}',
      '{"status":"approved","note":1}', '{"__proto__":1,"status":"approved"}', '{"__proto__":{"status":"approved"}}', 'null', '"approved"',
    ];
    for (const text of updates) orderUpdateVerdict(JSON.parse(text));
  });
});

// ---------------------------------------------------------------------------------------------

const headerChar = fc.oneof(
  fc.constantFrom('\u0020', '\u0021', '\u007e', '\u007f', '\u0000', '\t', '\r', '\n', ',', '"', ';', '=', '~', ':', '/', '+', '.', '_', '-'),
  fc.constantFrom('é', '\u00ff', '\u0100', '\u2028', '\ud800', '\ud83d\ude00', 'A', 'z', '0', '9'),
  fc.integer({ min: 0x00, max: 0x80 }).map((code) => String.fromCharCode(code)),
);
/** Header values around every boundary: characters, lengths around 128 and 255, repeated headers joined or as arrays. */
const headerValue = (lengths: readonly number[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.array(headerChar, { maxLength: 12 }).map((chars) => chars.join('')) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...lengths), fc.constantFrom('a', 'Z', '9', '-', '~', '!', '.'), fc.option(headerChar, { nil: undefined }), fc.nat())
        .map(([length, unit, odd, at]) => {
          const chars: string[] = Array.from({ length }, () => unit);
          if (odd !== undefined && length > 0) chars[at % length] = odd;
          return chars.join('');
        }),
    },
    { weight: 1, arbitrary: fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{1,8}$/), fc.stringMatching(/^[A-Za-z0-9]{1,8}$/)).map(([a, b]) => `${a}, ${b}`) },
    { weight: 1, arbitrary: fc.array(fc.stringMatching(/^[A-Za-z0-9]{1,8}$/), { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  );

describe('the Idempotency-Key header of createPet and placeOrder', () => {
  const parameters = documentedParameters(['createPet', 'placeOrder'], 'Idempotency-Key', 'header');
  const verdict = (value: unknown) => expectSameVerdict(parameters, value, isIdempotencyKey(value as string), 'isIdempotencyKey');

  it('accepts exactly the keys isIdempotencyKey accepts: one value of 1 to 255 visible ASCII characters', () => {
    fc.assert(fc.property(headerValue([0, 1, 2, 254, 255, 256, 300]), verdict), { numRuns: runs(5_000) });
  });

  it('gives the verdict of isIdempotencyKey on the boundary keys, and is optional as the server treats a missing key', () => {
    const cases: unknown[] = [
      '', 'a', '!', '~', ' ', 'a b', '\u007f', 'a\n', '\tkey', 'é', '\ud83d\ude00', 'a'.repeat(255), 'a'.repeat(256), '😀'.repeat(128),
      'k1, k2', ['k1'], ['k1', 'k2'], [],
    ];
    for (const value of cases) verdict(value);
    // Without the header createIdempotently creates without a key: the parameter must be optional.
    for (const parameter of parameters) expect(parameter.required, parameter.operationId).toBe(false);
  });
});

describe('the X-Request-Id header', () => {
  const schemaPointer = `${resolveInDocument('/components/headers/X-Request-Id').pointer}/schema`;
  const schemaAccepts = validatorAt(schemaPointer);
  const verdict = (header: unknown) => {
    const echoed = requestIdOf(header as string) === header;
    expect(schemaAccepts(header), `${show(header)}: requestIdOf ${echoed ? 'echoes' : 'replaces'} it`).toBe(echoed);
    const answered = requestIdOf(header as string);
    expect(schemaAccepts(answered), `${show(header)} is answered with ${answered}`).toBe(true);
  };

  it('the header schema accepts exactly the request ids requestIdOf echoes (1 to 128 of A-Z a-z 0-9 . _ ~ : / + = -), and every id it answers', () => {
    fc.assert(fc.property(fc.oneof(headerValue([0, 1, 2, 127, 128, 129, 200]), fc.constant(undefined)), verdict), { numRuns: runs(5_000) });
  });

  it('gives the verdict of requestIdOf on the boundary ids', () => {
    const cases: unknown[] = [
      undefined, '', 'a', 'A-Z_a.z~0:9/+=', 'a'.repeat(128), 'a'.repeat(129), 'a b', 'a\n', 'é', '\ud83d\ude00', 'a,b', 'a;b', '"a"', '%41',
      ['a'], ['a', 'b'], [],
    ];
    for (const value of cases) verdict(value);
  });
});
