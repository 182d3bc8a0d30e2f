import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64Url, encodeBase64Url } from '../../src/domain/paging/base64url.js';
import { runs } from '../support/property-runs.js';

const latin1Arb = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)), maxLength: 60 });

describe('base64url', () => {
  it('encodes any Latin-1 text exactly as Node encodes it, and decodes it back', () => {
    fc.assert(
      fc.property(latin1Arb, (text) => {
        const encoded = encodeBase64Url(text);
        expect(encoded).toBe(Buffer.from(text, 'latin1').toString('base64url'));
        expect(decodeBase64Url(encoded)).toBe(text);
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('decodes any base64url of a possible length as Node does', () => {
    const base64UrlArb = fc
      .string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), maxLength: 60 })
      .filter((text) => text.length % 4 !== 1);
    fc.assert(
      fc.property(base64UrlArb, (text) => {
        expect(decodeBase64Url(text)).toBe(Buffer.from(text, 'base64url').toString('latin1'));
      }),
      { numRuns: runs(5_000) },
    );
  });

  it.each(['A', 'AAAAA', 'YQ==', 'Y+8', 'Y/8', 'Y Q', 'é'])('rejects %j, which is not unpadded base64url', (text) => {
    expect(decodeBase64Url(text)).toBeUndefined();
  });
});
