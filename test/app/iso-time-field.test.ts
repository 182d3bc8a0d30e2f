import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimeField } from '../../src/app/logging/iso-time-field.js';
import { runs } from '../support/property-runs.js';

describe('the time field of log lines', () => {
  it('is pino\'s ,"time":"<toISOString>" for every time, however the times follow each other (within a millisecond, a second, back and forth, before 1970)', () => {
    const times = fc.array(
      fc.oneof(
        fc.integer({ min: -62_000_000_000_000, max: 253_000_000_000_000 }),
        fc.integer({ min: 1_795_000_000_000, max: 1_795_000_003_000 }), // a few seconds of 2026: shared seconds and milliseconds
      ),
      { minLength: 1, maxLength: 50 },
    );
    fc.assert(
      fc.property(times, (sequence) => {
        const field = isoTimeField();
        for (const time of sequence) expect(field(time)).toBe(`,"time":"${new Date(time).toISOString()}"`);
      }),
      { numRuns: runs(1_000) },
    );
  });
});
