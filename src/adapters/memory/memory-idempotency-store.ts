import type { IdempotencyClaim, IdempotencyStart, IdempotencyStore } from '../../ports/idempotency-store.js';
import type { MemoryIdempotencyRecords } from './memory-idempotency-records.js';

/** Idempotency-Key records of one process, over the records its repositories complete. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  constructor(private readonly records: MemoryIdempotencyRecords) {}

  async begin(claim: IdempotencyClaim): Promise<IdempotencyStart> {
    return this.records.begin(claim);
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    this.records.release(claim);
  }
}
