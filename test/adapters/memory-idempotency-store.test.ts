import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_IN_FLIGHT_MS, IDEMPOTENCY_MARK_RESOLUTION_MS, IDEMPOTENCY_RECORD_MS } from '../../src/ports/idempotency-store.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { claimOf } from '../contracts/stores-fixture.js';
import { ManualClock } from '../support/manual-clock.js';
import { memoryStores, START } from './memory-stores-fixture.js';

describeIdempotencyStoreContract('MemoryIdempotencyStore', async () => memoryStores());

describe('MemoryIdempotencyStore expiry', () => {
  const REX = { name: 'Rex', categoryId: 1, status: 'available' } as const;

  it('an in-flight mark holds repeats off until its last second (IDEMPOTENCY_MARK_RESOLUTION_MS), so a request whose instance died blocks its key no longer', async () => {
    const clock = new ManualClock(START);
    const { idempotency } = memoryStores(clock);
    const claim = claimOf('k1');
    expect(await idempotency.begin(claim)).toEqual({ kind: 'started' });
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS - IDEMPOTENCY_MARK_RESOLUTION_MS);
    expect(await idempotency.begin(claim)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_MARK_RESOLUTION_MS });
    expect(await idempotency.begin(claimOf('k1', 'other'))).toEqual({ kind: 'reused' });
    clock.advance(1);
    expect(await idempotency.begin(claimOf('k1', 'other'))).toEqual({ kind: 'started' });
  });

  it('a completed record is kept 24 h from its completion, then the key is free', async () => {
    const clock = new ManualClock(START);
    const { idempotency, pets } = memoryStores(clock);
    const claim = claimOf('k1');
    await idempotency.begin(claim);
    clock.advance(30_000);
    const pet = await pets.create(REX, claim);
    // Past the in-flight mark's lifetime: the completed record replaced it.
    clock.advance(IDEMPOTENCY_RECORD_MS - 1);
    expect(await idempotency.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet } });
    clock.advance(1);
    expect(await idempotency.begin(claim)).toEqual({ kind: 'started' });
  });

  it('a mark released and begun again lives its own lifetime, not the first one', async () => {
    const clock = new ManualClock(START);
    const { idempotency } = memoryStores(clock);
    const claim = claimOf('k1');
    await idempotency.begin(claim);
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS * 0.6);
    await idempotency.release(claim);
    expect(await idempotency.begin(claim)).toEqual({ kind: 'started' });
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS * 0.6);
    expect(await idempotency.begin(claim)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_IN_FLIGHT_MS * 0.4 });
  });

  it('holds only the records still alive: expired ones are swept as calls come', async () => {
    const clock = new ManualClock(START);
    const { idempotency, pets, records } = memoryStores(clock);
    for (let i = 0; i < 5_000; i++) await idempotency.begin(claimOf(`mark ${i}`));
    for (let i = 0; i < 3_000; i++) await pets.create(REX, claimOf(`done ${i}`));
    expect(records.size).toBe(8_000);
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS);
    await idempotency.begin(claimOf('new'));
    expect(records.size).toBe(3_001);
    clock.advance(IDEMPOTENCY_RECORD_MS);
    await idempotency.release(claimOf('new'));
    expect(records.size).toBe(0);
  });
});
