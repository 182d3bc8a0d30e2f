import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../src/adapters/http/wire/json-duplicate-keys.js';
import { runs } from '../support/property-runs.js';

describe('findDuplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{ "name" : "Rex" ,\n\t"categoryId":1, "name":"Max"}', 'name'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"x":{"a":1,"a":2}}', 'a'],
    ['[{"a":1},{"b":[{"c":1,"c":2}]}]', 'c'],
    ['{"":1,"":2}', ''],
    ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
  ])('finds the repeated name in %s', (json, name) => {
    expect(findDuplicateKey(json)).toBe(name);
  });

  it.each([
    '{"a":1,"b":2}',
    '{"x":{"a":1},"a":2}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":"a"}',
    '{"a":"}{,\\"a\\":","b":["a","a"]}',
    '{"a":1,"A":2}',
    '"a"',
    '[]',
  ])('finds none in %s', (json) => {
    expect(findDuplicateKey(json)).toBeUndefined();
  });

  it('finds none in any JSON.stringify output, which never repeats a name', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(findDuplicateKey(JSON.stringify(value))).toBeUndefined();
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('finds a name repeated in any object, at any depth, however it is escaped', () => {
    const inner = fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue(), { minKeys: 1, maxKeys: 5 });
    fc.assert(
      fc.property(inner, fc.nat(), fc.jsonValue(), fc.nat({ max: 3 }), fc.boolean(), (object, pick, value, depth, escape) => {
        const names = Object.keys(object);
        const name = names[pick % names.length]!;
        // Every UTF-16 unit as \uXXXX: the same name, spelled unlike JSON.stringify spells it.
        const units = Array.from({ length: name.length }, (_, i) => `\\u${name.charCodeAt(i).toString(16).padStart(4, '0')}`);
        const spelled = escape ? `"${units.join('')}"` : JSON.stringify(name);
        let json = `${JSON.stringify(object).slice(0, -1)},${spelled}:${JSON.stringify(value)}}`;
        for (let level = 0; level < depth; level++) json = level % 2 === 0 ? `[1,${json}]` : `{"level":${json}}`;
        expect(findDuplicateKey(json)).toBe(name);
      }),
      { numRuns: runs(2_000) },
    );
  });
});
