import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/app/admin/latency-histogram.js';
import { runs } from '../support/property-runs.js';

const NAME = 'petstore_http_request_duration_seconds';
const HELP = 'Time from the request to the end of its answer.';
const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const observation = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  route: fc.constantFrom('/pets', '/pets/{petId}', 'unmatched', 'a"b\\c\nd'),
  // Bucket bounds themselves included: a bucket counts what is less than or equal to its bound.
  seconds: fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constantFrom(...BOUNDS)),
});

describe('LatencyHistogram', () => {
  it('for any observations, writes exactly the text prom-client writes for the same histogram', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const registry = new Registry();
        const reference = new Histogram({ name: NAME, help: HELP, labelNames: ['method', 'route'], buckets: BOUNDS, registers: [registry] });
        const histogram = new LatencyHistogram(NAME, HELP, BOUNDS);
        for (const { method, route, seconds } of observations) {
          reference.observe({ method, route }, seconds);
          histogram.observe(`${method} ${route}`, method, route, seconds);
        }
        expect(histogram.text()).toBe(await registry.metrics());
      }),
      { numRuns: runs(500) },
    );
  });
});
