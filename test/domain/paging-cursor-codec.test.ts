import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../src/domain/paging/ids.js';
import { cursorCodec, type PageCursor } from '../../src/domain/paging/page-cursor.js';
import { runs } from '../support/property-runs.js';

const base64Url = (text: string): string => Buffer.from(text, 'latin1').toString('base64url');
const rejected = { ok: false, error: { code: 'invalid_request', field: 'cursor', message: 'cursor is not one issued by this service' } };

const STATUSES = ['red', 'green', 'a-rather-long-status-name'] as const;
type Colour = (typeof STATUSES)[number];
const first = cursorCodec('t1', STATUSES);
const second = cursorCodec('t2', STATUSES);

const cursorArb: fc.Arbitrary<PageCursor<Colour>> = fc
  .tuple(fc.oneof(fc.integer({ min: 1, max: MAX_ID }), fc.constantFrom(1, 9, 10, MAX_ID)), fc.option(fc.constantFrom(...STATUSES), { nil: undefined }))
  .map(([afterId, status]) => (status === undefined ? { afterId } : { afterId, status }));

describe('cursorCodec', () => {
  it('decode(encode(c)) is c for every position and status, the longest included', () => {
    fc.assert(
      fc.property(cursorArb, (cursor) => {
        expect(first.decode(first.encode(cursor))).toEqual({ ok: true, value: cursor });
      }),
      { numRuns: runs(5_000) },
    );
    const longest = { afterId: MAX_ID, status: 'a-rather-long-status-name' as const };
    expect(first.decode(first.encode(longest))).toEqual({ ok: true, value: longest });
  });

  it('a cursor of one tag is foreign to a codec with another tag over the same statuses', () => {
    fc.assert(
      fc.property(cursorArb, (cursor) => {
        expect(second.decode(first.encode(cursor))).toEqual(rejected);
        expect(first.decode(second.encode(cursor))).toEqual(rejected);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('a status of another listing is refused even under the right tag', () => {
    const narrow = cursorCodec('t1', ['red'] as const);
    expect(narrow.decode(first.encode({ afterId: 3, status: 'green' }))).toEqual(rejected);
    expect(narrow.decode(first.encode({ afterId: 3, status: 'red' }))).toEqual({ ok: true, value: { afterId: 3, status: 'red' } });
  });

  it.each([
    ['no position', base64Url('t1.')],
    ['a position of zero', base64Url('t1.0')],
    ['a position past 2^53-1', base64Url('t1.9007199254740992')],
    ['seventeen digits', base64Url('t1.10000000000000000')],
    ['a regex metacharacter as status', base64Url('t1.5.r.d')],
    ['a status prefix', base64Url('t1.5.re')],
    ['two statuses', base64Url('t1.5.red|green')],
  ])('rejects %s', (_, text) => {
    expect(first.decode(text)).toEqual(rejected);
  });

  it('only the strings encode returns decode, and each decodes to what it was encoded from', () => {
    const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    const mutated = fc.tuple(cursorArb, fc.nat(), alphabet).map(([cursor, at, char]) => {
      const text = first.encode(cursor);
      const index = at % text.length;
      return text.slice(0, index) + char + text.slice(index + 1);
    });
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: alphabet, maxLength: 60 }), mutated), (text) => {
        const decoded = first.decode(text);
        if (!decoded.ok) {
          expect(decoded).toEqual(rejected);
          return;
        }
        accepted += 1;
        expect(first.encode(decoded.value)).toBe(text);
      }),
      { numRuns: runs(10_000) },
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
