import type { RequestFinishedEvent } from '../../src/adapters/http/wire/request-finished.js';
import { requestIdOf } from '../../src/adapters/http/wire/request-id.js';

/** A finished `GET /pets` admitted for an anonymous caller, with what a test sets over it: one place that knows every field of the event. */
export const finishedEvent = (fields: Partial<RequestFinishedEvent> = {}): RequestFinishedEvent => ({
  requestId: requestIdOf(undefined),
  method: 'GET',
  route: '/pets',
  operation: 'listPets',
  status: 200,
  durationMs: 1.5,
  finishedAt: 1_795_000_000_000,
  completed: true,
  path: '/v1/pets',
  bytes: 2,
  client: '127.0.0.1',
  userAgent: null,
  key: 'anonymous',
  plan: 'anonymous',
  verdict: 'admitted',
  shadowed: null,
  refunded: null,
  refundLost: null,
  storeUnavailable: null,
  ...fields,
});
