import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageOf, SortedIds } from '../../src/adapters/memory/sorted-ids.js';
import { runs } from '../support/property-runs.js';

/** What SortedIds must answer: the ids of a set, sorted. */
const modelAfter = (model: ReadonlySet<number>, afterId: number, limit: number): number[] =>
  [...model].filter((id) => id > afterId).sort((a, b) => a - b).slice(0, limit);

const operation = (maxId: number) =>
  fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), id: fc.integer({ min: 1, max: maxId }) }),
    fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: maxId }) }),
    fc.record({ kind: fc.constant('page' as const), id: fc.integer({ min: 0, max: maxId + 1 }), limit: fc.integer({ min: 1, max: 150 }) }),
  );

describe('SortedIds', () => {
  it('answers every page and size like a sorted set, through any inserts and removes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 5_000 }), fc.array(operation(5_000), { maxLength: 400 }), (maxId, operations) => {
        const ids = new SortedIds();
        const model = new Set<number>();
        for (const op of operations) {
          const id = Math.min(op.id, maxId);
          if (op.kind === 'insert') {
            ids.insert(id);
            model.add(id);
          } else if (op.kind === 'remove') {
            ids.remove(id);
            model.delete(id);
          } else {
            expect(ids.after(op.id, op.limit)).toEqual(modelAfter(model, op.id, op.limit));
          }
          expect(ids.size).toBe(model.size);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it('keeps its order through many levels of splits, and through removing all but a few, then all', () => {
    const ids = new SortedIds();
    const count = 300_000;
    // Appended in order, as new pets are, then out of order, as status changes move them.
    for (let id = 1; id <= count; id += 2) ids.insert(id);
    for (let id = count; id >= 2; id -= 2) ids.insert(id);
    expect(ids.size).toBe(count);
    expect(ids.after(0, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(ids.after(150_000, 3)).toEqual([150_001, 150_002, 150_003]);
    for (let id = 1; id <= count; id++) if (id % 1_000 !== 0) ids.remove(id);
    expect(ids.size).toBe(300);
    expect(ids.after(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => (i + 1) * 1_000));
    expect(ids.after(299_000, 100)).toEqual([300_000]);
    for (let id = 1_000; id <= count; id += 1_000) ids.remove(id);
    expect(ids.size).toBe(0);
    expect(ids.after(0, 10)).toEqual([]);
    ids.insert(7);
    expect(ids.after(0, 10)).toEqual([7]);
  });

  it('answers like a sorted set through many levels of splits under random inserts and removes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: 60_000, maxLength: 60_000 }), (randoms) => {
        const maxId = 20_000;
        const ids = new SortedIds();
        const model = new Uint8Array(maxId + 2);
        let size = 0;
        for (const [step, random] of randoms.entries()) {
          const id = 1 + (random % maxId);
          // Inserts outnumber removes early on, so the tree grows past two levels, then shrinks.
          const inserting = step < 40_000 ? random % 4 !== 0 : random % 4 === 0;
          if (inserting) {
            ids.insert(id);
            size += model[id] === 0 ? 1 : 0;
            model[id] = 1;
          } else {
            ids.remove(id);
            size -= model[id] === 1 ? 1 : 0;
            model[id] = 0;
          }
          if (step % 97 === 0) {
            const afterId = random % (maxId + 1);
            const expected: number[] = [];
            for (let next = afterId + 1; next <= maxId && expected.length < 100; next++) if (model[next] === 1) expected.push(next);
            expect(ids.after(afterId, 100)).toEqual(expected);
            expect(ids.size).toBe(size);
          }
        }
      }),
      { numRuns: runs(5) },
    );
  });

  it('pageOf: following moreAfter from 0 visits every id held once, ascending, and never reaches an empty page, whatever gaps removals left', () => {
    const removals = fc.array(fc.integer({ min: 1, max: 2_000 }), { maxLength: 1_500 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_000 }), removals, fc.integer({ min: 1, max: 100 }), (count, removed, limit) => {
        // Ids 1..count as pets are created, then some taken out, as a deleted pet would be.
        const ids = new SortedIds();
        for (let id = 1; id <= count; id++) ids.insert(id);
        for (const id of removed) ids.remove(id);
        const gone = new Set(removed);
        const held = Array.from({ length: count }, (_, i) => i + 1).filter((id) => !gone.has(id));
        const visited: number[] = [];
        let afterId: number | undefined = 0;
        while (afterId !== undefined) {
          const page = pageOf(ids, afterId, limit);
          if (afterId > 0) expect(page.ids.length).toBeGreaterThan(0);
          expect(page.ids.length).toBeLessThanOrEqual(limit);
          visited.push(...page.ids);
          afterId = page.moreAfter;
        }
        expect(visited).toEqual(held);
      }),
      { numRuns: runs(300) },
    );
  });
});
