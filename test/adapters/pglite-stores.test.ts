import { describe } from 'vitest';
import { PostgresApiKeyRegistry } from '../../src/adapters/postgres/postgres-api-key-registry.js';
import { PostgresCreditLedger } from '../../src/adapters/postgres/postgres-credit-ledger.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { describeCreditLedgerContract } from '../contracts/credit-ledger-contract.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { runs } from '../support/property-runs.js';
import { pgliteStores, usePglite } from './pglite-stores-fixture.js';

// The PostgreSQL store's classes on PGlite: every contract, each suite on a PGlite of its own.
describe('PGlite: pets', () => {
  describePetRepositoryContract('PGlite', pgliteStores(usePglite()), { numRuns: runs(30) });
});

describe('PGlite: orders', () => {
  describeOrderRepositoryContract('PGlite', pgliteStores(usePglite()), { numRuns: runs(30) });
});

describe('PGlite: idempotency records', () => {
  describeIdempotencyStoreContract('PGlite', pgliteStores(usePglite()));
});

describe('PGlite: keys', () => {
  const fixtures = usePglite();
  describeApiKeyRegistryContract(
    'PGlite',
    async () => {
      const { db, drop } = await fixtures.fresh();
      return { registry: new PostgresApiKeyRegistry(db, new SystemClock()), cleanup: drop };
    },
    { numRuns: runs(20) },
  );
  describeKeyAdminContract('PGlite', async (clock) => {
    const { db, drop } = await fixtures.fresh();
    return { registry: new PostgresApiKeyRegistry(db, clock), cleanup: drop };
  });
});

describe('PGlite: credits', () => {
  const fixtures = usePglite();
  describeCreditLedgerContract('PGlite', async () => {
    const { db, drop } = await fixtures.fresh();
    return { ledger: new PostgresCreditLedger(db), cleanup: drop };
  });
});
