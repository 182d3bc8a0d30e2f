import type { IdempotencyClaim, IdempotencyStart, IdempotencyStore, IdempotentResult } from '../../ports/idempotency-store.js';
import type { DomainError } from '../errors.js';
import type { Result } from '../result.js';
import type { CallScope } from '../../ports/tracer.js';

export type IdempotentOutcome<T> =
  | { readonly kind: 'ran'; readonly result: Result<T, DomainError> }
  | Exclude<IdempotencyStart, { readonly kind: 'started' }>;

/**
 * Runs a creating request at most once per Idempotency-Key: a repeat of one that succeeded is
 * replayed, a repeat while it runs is in flight, another request under the same key is reused.
 * Only a success is remembered (written by `run` itself, in the step that creates): after a
 * refusal or a failure the mark is dropped, so the client may retry with the same key. A mark
 * that cannot be dropped (the store is down) holds repeats off until its end, which `in_flight` tells.
 */
export async function runIdempotently<T>(
  store: IdempotencyStore,
  claim: IdempotencyClaim,
  run: (claim: IdempotencyClaim) => Promise<Result<T, DomainError>>,
  scope?: CallScope,
): Promise<IdempotentOutcome<T>> {
  const start = await store.begin(claim, scope);
  if (start.kind !== 'started') return start;
  let result: Result<T, DomainError>;
  try {
    result = await run(claim);
  } catch (error) {
    // The store may be down, or may have stored it anyway: a kept mark only delays a retry,
    // and the retry replays whatever was stored. Not awaited: the failure is answered within
    // the request's deadline, not after another wait on a store that just failed it.
    void store.release(claim, scope).catch(() => undefined);
    throw error;
  }
  if (!result.ok) await store.release(claim, scope);
  return { kind: 'ran', result };
}

export type { IdempotentResult };
