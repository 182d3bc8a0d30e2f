import { describe, expect, it } from 'vitest';
import { PostgresIdempotencyStore } from '../../src/adapters/postgres/postgres-idempotency-store.js';
import { PostgresPetRepository } from '../../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { IdsExhaustedError } from '../../src/domain/errors.js';
import { MAX_ID } from '../../src/domain/pets/pet.js';
import { IDEMPOTENCY_IN_FLIGHT_MS, IDEMPOTENCY_MARK_RESOLUTION_MS } from '../../src/ports/idempotency-store.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { claimOf } from '../contracts/stores-fixture.js';
import { ManualClock } from '../support/manual-clock.js';
import { postgresStores, usePostgresSchemas } from './postgres-stores-fixture.js';

const schemas = usePostgresSchemas();

describePetRepositoryContract('PostgresPetRepository', postgresStores(schemas), { numRuns: 30 });
describeOrderRepositoryContract('PostgresOrderRepository', postgresStores(schemas), { numRuns: 30 });
describeIdempotencyStoreContract('PostgresIdempotencyStore', postgresStores(schemas));

describe('PostgresPetRepository at the top of the id range', () => {
  it('keeps ids exact up to 2^53-1 through create, get and a page, and refuses to go past it', async () => {
    const { db, drop } = await schemas.fresh();
    try {
      const pets = new PostgresPetRepository(db, new SystemClock());
      await db.query(`ALTER TABLE pets ALTER COLUMN id RESTART WITH ${MAX_ID - 1}`);
      const below = await pets.create({ name: 'Rex', categoryId: MAX_ID, status: 'available' });
      const top = await pets.create({ name: 'Tom', categoryId: 1, status: 'sold' });
      expect([below.id, top.id]).toEqual([MAX_ID - 1, MAX_ID]);
      expect(await pets.get(MAX_ID)).toEqual(top);
      expect(await pets.pageJson({ afterId: MAX_ID - 2, limit: 1 })).toEqual({ json: JSON.stringify([below]), moreAfter: MAX_ID - 1 });
      expect(await pets.pageJson({ afterId: MAX_ID - 1, limit: 5 })).toEqual({ json: JSON.stringify([top]), moreAfter: undefined });
      await expect(pets.create({ name: 'Max', categoryId: 1, status: 'available' })).rejects.toBeInstanceOf(IdsExhaustedError);
    } finally {
      await drop();
    }
  });
});

describe('PostgresIdempotencyStore in-flight marks', () => {
  it('a mark tells a repeat its time left, and holds it off no more in its last second (IDEMPOTENCY_MARK_RESOLUTION_MS)', async () => {
    const { db, drop } = await schemas.fresh();
    try {
      const clock = new ManualClock(1_767_225_600_000);
      const store = new PostgresIdempotencyStore(db, clock);
      const claim = claimOf('k1');
      expect(await store.begin(claim)).toEqual({ kind: 'started' });
      clock.advance(IDEMPOTENCY_IN_FLIGHT_MS - IDEMPOTENCY_MARK_RESOLUTION_MS);
      expect(await store.begin(claim)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_MARK_RESOLUTION_MS });
      expect(await store.begin(claimOf('k1', 'another request'))).toEqual({ kind: 'reused' });
      clock.advance(1);
      expect(await store.begin(claim)).toEqual({ kind: 'started' });
      expect(await store.begin(claim)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_IN_FLIGHT_MS });
    } finally {
      await drop();
    }
  });
});
