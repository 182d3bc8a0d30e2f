import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore } from '../../src/app/create-pet-store.js';
import { ConfigurationError } from '../../src/app/start-pet-store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { useTestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

describe('createPetStore: the handler dependencies in one call', () => {
  it('over the memory store: the configured keys are admitted, the use cases work', async () => {
    const petStore = await createPetStore({ apiKeys: ['setup-key-123:pro'] });
    try {
      const { admission, catalog } = petStore.dependencies;
      const created = await catalog.create({ name: 'Rex', categoryId: 1 });
      expect(created.ok && created.value.id).toBe(1);
      const admitted = await admission.admit(createHash('sha256').update('setup-key-123').digest('hex'), '127.0.0.1');
      expect([admitted.plan?.name, admitted.decision.verdict]).toEqual(['pro', 'admitted']);
    } finally {
      await petStore.close();
    }
  });

  it('refuses a bad setup with one line per mistake', async () => {
    const error = await createPetStore({ apiKeys: ['short'], environ: { PETSTORE_ANONYMOUS_PER_MINUTE: 'many' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      'PETSTORE_API_KEYS: entry 1: the key must be 8 to 256 characters of letters, digits or ._~+/=-',
      'PETSTORE_ANONYMOUS_PER_MINUTE="many": must be a whole number from 1 to 1000000000',
    ]);
  });

  it('throws at once, naming the store, when it cannot be reached', async () => {
    const error = await createPetStore({ store: 'postgres', databaseUrl: 'postgres://shop:secret@127.0.0.1:1/shop' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe('PostgreSQL at postgres://shop:***@127.0.0.1:1/shop (DATABASE_URL) is unavailable');
  });

  describe('over PostgreSQL and Redis', () => {
    const database = useTestDatabase();
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await acquireTestRedis();
    });
    afterAll(async () => {
      await redis.cleanup();
    });

    it('keeps the records in the database: a second setup on it reads them', async () => {
      const setup = { store: 'postgres' as const, databaseUrl: database.url, redisUrl: redis.url, redisPrefix: redis.prefix };
      const first = await createPetStore(setup);
      await first.dependencies.catalog.create({ name: 'Rex', categoryId: 1 });
      await first.close();
      const second = await createPetStore(setup);
      try {
        const pet = await second.dependencies.catalog.get(1);
        expect(pet.ok && pet.value.name).toBe('Rex');
      } finally {
        await second.close();
      }
    });
  });
});
