import { finishedEvent } from '../support/request-finished-event.js';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { RequestFinishedEvent } from '../../src/adapters/http/wire/request-finished.js';
import { requestIdOf } from '../../src/adapters/http/wire/request-id.js';
import { AccessLines } from '../../src/app/logging/access-line.js';
import { isoTimeField } from '../../src/app/logging/iso-time-field.js';
import { createLogger } from '../../src/app/logging/logger.js';
import { capturedLog } from '../support/captured-log.js';
import { runs } from '../support/property-runs.js';

const PID = 4242;

/** What pino itself writes for the access line's fields, with the logger's base and its isoTime format for the request's end. */
const pinoLine = (event: RequestFinishedEvent): string => {
  let line = '';
  const logger = pino({ base: { pid: PID }, timestamp: () => `,"time":"${new Date(event.finishedAt).toISOString()}"` }, { write: (text: string) => (line = text) });
  logger.info(
    {
      requestId: event.requestId,
      method: event.method,
      route: event.route,
      status: event.status,
      durationMs: Math.round(event.durationMs * 100) / 100,
      path: event.path,
      bytes: event.bytes,
      client: event.client,
      userAgent: event.userAgent,
      key: event.key,
      plan: event.plan,
      verdict: event.verdict,
      ...(event.shadowed === null ? {} : { shadowed: event.shadowed }),
      ...(event.refunded === null ? {} : { refunded: event.refunded }),
      ...(event.refundLost === null ? {} : { refundLost: event.refundLost }),
      ...(event.completed ? {} : { aborted: true }),
    },
    'request',
  );
  return line;
};

const anyText = fc.string({ unit: 'binary', maxLength: 60 });
/** Few values of each, so that lines share their pieces, and any string besides. */
const events: fc.Arbitrary<RequestFinishedEvent> = fc.record({
  // What a caller may send: a safe id is kept, anything else replaced by a UUID.
  requestId: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9._~:/+=-]{1,128}$/), anyText).map((header) => requestIdOf(header)),
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'DELETE', 'OPTIONS'), anyText),
  route: fc.oneof(fc.constant(null), fc.constantFrom('/pets', '/pets/{petId}'), anyText),
  operation: fc.constant(null),
  status: fc.oneof(fc.constantFrom(200, 404, 429), fc.integer({ min: 100, max: 599 })),
  durationMs: fc.oneof(fc.double({ min: 0, max: 600_000, noNaN: true }), fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100), fc.double({ noNaN: true })),
  // Lines of one millisecond, of one second, and of any time.
  finishedAt: fc.oneof(
    fc.constantFrom(1_795_000_000_000, 1_795_000_000_001),
    fc.integer({ min: 1_795_000_000_000, max: 1_795_000_003_000 }),
    fc.integer({ min: 0, max: 253_000_000_000_000 }),
  ),
  completed: fc.boolean(),
  path: fc.oneof(fc.constantFrom('/v1/pets', '/v1/pets/7'), anyText),
  bytes: fc.oneof(fc.constantFrom(0, 117), fc.nat()),
  client: fc.oneof(fc.constantFrom('127.0.0.1', '::1', '2001:db8::1'), anyText),
  userAgent: fc.oneof(fc.constant(null), fc.constantFrom('curl/8.5.0', 'node'), anyText),
  key: fc.oneof(fc.constantFrom('anonymous', '2f1f2bb3'), fc.stringMatching(/^[0-9a-f]{8}$/), anyText),
  plan: fc.oneof(fc.constantFrom('anonymous', 'free', 'pro', 'enterprise'), anyText),
  verdict: fc.oneof(fc.constant(null), fc.constantFrom('admitted', 'rate_limited', 'banned'), anyText),
  shadowed: fc.oneof(fc.constant(null), fc.constant(null), fc.constantFrom(['search'], ['search', 'hour']), fc.array(anyText, { minLength: 1, maxLength: 3 })),
  refunded: fc.oneof(fc.constant(null), fc.constant(null), fc.constantFrom(['budget'], ['budget', 'day']), fc.array(anyText, { minLength: 1, maxLength: 3 })),
  refundLost: fc.oneof(fc.constant(null), fc.constant(null), fc.constant(null), fc.constantFrom(['budget']), fc.array(anyText, { minLength: 1, maxLength: 2 })),
  storeUnavailable: fc.constant(null),
});

describe('the access line', () => {
  it('is byte for byte what pino writes for the same fields, line after line, whatever the strings hold (quotes, control characters, lone surrogates) and however lines share their pieces', () => {
    fc.assert(
      fc.property(fc.array(events, { minLength: 1, maxLength: 30 }), (requests) => {
        const lines = new AccessLines(PID, isoTimeField());
        for (const event of requests) expect(lines.line(event)).toBe(pinoLine(event));
      }),
      { numRuns: runs(1_000) },
    );
  });

  it('is written by the logger, at level info, in order with its other lines (at warn too: logger.test.ts)', () => {
    const out = capturedLog();
    const event = finishedEvent({ requestId: requestIdOf('req-1'), durationMs: 1.234, finishedAt: 1_795_000_000_123, key: '2f1f2bb3', plan: 'pro' });
    const info = createLogger('info', out.stream);
    info.access(event);
    info.logger.info('next');
    const [line] = out.lines();
    expect(line).toMatchObject({ level: 30, pid: process.pid, requestId: 'req-1', route: '/pets', status: 200, durationMs: 1.23, key: '2f1f2bb3', msg: 'request' });
    // The line's time is the request's end, not the moment its batch was written.
    expect(line?.['time']).toBe(new Date(1_795_000_000_123).toISOString());
  });
});
