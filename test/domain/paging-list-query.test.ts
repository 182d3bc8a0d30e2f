import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../src/domain/paging/ids.js';
import { listPage } from '../../src/domain/paging/list-page.js';
import { parseListQuery, type ListQuery } from '../../src/domain/paging/list-query.js';
import { cursorCodec, type PageCursor } from '../../src/domain/paging/page-cursor.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../src/domain/paging/page-limits.js';
import { untyped } from '../support/untyped.js';
import { runs } from '../support/property-runs.js';

const STATUSES = ['red', 'green'] as const;
type Colour = (typeof STATUSES)[number];
const codec = cursorCodec('t1', STATUSES);
const foreign = cursorCodec('t2', STATUSES);

const invalid = (field: string, message: string) => ({ ok: false, error: { code: 'invalid_request', field, message } });

describe('parseListQuery', () => {
  it('an empty query is the first page of the default size, unfiltered', () => {
    expect(parseListQuery({}, STATUSES, codec)).toEqual({ ok: true, value: { limit: DEFAULT_PAGE_LIMIT, status: undefined, afterId: 0 } });
  });

  it('a limit, a status and a cursor issued for that status', () => {
    const cursor = codec.encode({ afterId: 17, status: 'green' });
    expect(parseListQuery({ limit: '5', status: 'green', cursor }, STATUSES, codec)).toEqual({
      ok: true,
      value: { limit: 5, status: 'green', afterId: 17 },
    });
  });

  it.each([0, 101, '0', '101', 1.5, '1.5', '', ['5'], null])('limit %j is a 400 naming limit', (limit) => {
    expect(parseListQuery(untyped<ListQuery<Colour>>({ limit }), STATUSES, codec)).toEqual(invalid('limit', `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`));
  });

  it.each(['blue', 'Red', '', ['red'], 1, null])('status %j is a 400 naming status', (status) => {
    expect(parseListQuery(untyped<ListQuery<Colour>>({ status }), STATUSES, codec)).toEqual(invalid('status', 'status must be one of red, green'));
  });

  it.each([[['a', 'b']], [1], [null], [{}]])('cursor %j is a 400: it must be a single string', (cursor) => {
    expect(parseListQuery(untyped<ListQuery<Colour>>({ cursor }), STATUSES, codec)).toEqual(invalid('cursor', 'cursor must be a single string'));
  });

  it('a cursor of another listing is a 400', () => {
    expect(parseListQuery({ cursor: foreign.encode({ afterId: 3 }) }, STATUSES, codec)).toEqual(
      invalid('cursor', 'cursor is not one issued by this service'),
    );
  });

  it('a cursor is valid only with the status filter it was issued for', () => {
    const statusArb = fc.option(fc.constantFrom(...STATUSES), { nil: undefined });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ID }), statusArb, statusArb, (afterId, issuedFor, usedWith) => {
        const cursor = codec.encode(issuedFor === undefined ? { afterId } : { afterId, status: issuedFor });
        const query: ListQuery = usedWith === undefined ? { cursor } : { cursor, status: usedWith };
        const parsed = parseListQuery(query, STATUSES, codec);
        if (issuedFor === usedWith) expect(parsed).toEqual({ ok: true, value: { limit: DEFAULT_PAGE_LIMIT, status: usedWith, afterId } });
        else expect(parsed).toEqual(invalid('cursor', 'cursor was issued for a different status filter'));
      }),
      { numRuns: runs(1_000) },
    );
  });
});

describe('listPage', () => {
  const encode = (cursor: PageCursor<Colour>): string => codec.encode(cursor);

  it('gives the first limit items, and a next cursor after the last of them only when one more was found', () => {
    const foundArb = fc.integer({ min: 1, max: 12 }).chain((limit) =>
      fc.tuple(
        fc.constant(limit),
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000 }), { maxLength: limit + 1 }).map((ids) => ids.sort((a, b) => a - b).map((id) => ({ id }))),
        fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
      ),
    );
    fc.assert(
      fc.property(foundArb, ([limit, found, status]) => {
        const page = listPage(found, limit, status, encode);
        expect(page.items).toEqual(found.slice(0, limit));
        if (found.length <= limit) {
          expect(page).toEqual({ items: found });
          return;
        }
        const afterId = found[limit - 1]!.id;
        expect(page.next).toEqual(
          status === undefined ? { cursor: encode({ afterId }), limit } : { cursor: encode({ afterId, status }), limit, status },
        );
        expect(codec.decode(page.next!.cursor)).toEqual({ ok: true, value: status === undefined ? { afterId } : { afterId, status } });
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('following next from the first page visits every matching item once, in order, and no page reached is empty', () => {
    const itemsArb = fc.array(fc.constantFrom(...STATUSES), { maxLength: 40 }).map((statuses) => statuses.map((status, i) => ({ id: i + 1, status })));
    fc.assert(
      fc.property(itemsArb, fc.integer({ min: 1, max: 7 }), fc.option(fc.constantFrom(...STATUSES), { nil: undefined }), (items, limit, status) => {
        const matching = items.filter((item) => status === undefined || item.status === status);
        const seen: number[] = [];
        let query: ListQuery<Colour> = { limit, ...(status === undefined ? {} : { status }) };
        for (let pages = 0; pages <= items.length + 1; pages += 1) {
          const parsed = parseListQuery(query, STATUSES, codec);
          if (!parsed.ok) throw new Error(parsed.error.message);
          const found = matching.filter((item) => item.id > parsed.value.afterId).slice(0, parsed.value.limit + 1);
          const page = listPage(found, parsed.value.limit, parsed.value.status, encode);
          if (pages > 0) expect(page.items.length).toBeGreaterThan(0);
          seen.push(...page.items.map((item) => item.id));
          if (page.next === undefined) break;
          query = { limit: page.next.limit, cursor: page.next.cursor, ...(page.next.status === undefined ? {} : { status: page.next.status }) };
        }
        expect(seen).toEqual(matching.map((item) => item.id));
      }),
      { numRuns: runs(1_000) },
    );
  });
});
