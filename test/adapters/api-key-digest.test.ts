import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cachedDigestApiKey, digestApiKey } from '../../src/adapters/api-key-digest.js';
import { runs } from '../support/property-runs.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('API key digests', () => {
  it('the cached digest of any sequence of keys is always the SHA-256 of the key, whatever the cache dropped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 60 }), (capacity, keys) => {
        const digest = cachedDigestApiKey(capacity);
        for (const key of keys) expect(digest(key)).toBe(sha256(key));
      }),
      { numRuns: runs(1_000) },
    );
    expect(digestApiKey('ps_key')).toBe(sha256('ps_key'));
  });

  it('remembers at most its capacity, dropping the key remembered longest ago', () => {
    const computed: string[] = [];
    const digest = cachedDigestApiKey(2, (key) => {
      computed.push(key);
      return sha256(key);
    });
    for (const key of ['a', 'b', 'a', 'c', 'a', 'b', 'b']) digest(key);
    // a and b remembered; c drops a; a drops b; b drops c; the last b is remembered.
    expect(computed).toEqual(['a', 'b', 'c', 'a', 'b']);
  });
});
