import { PostgresApiKeyRegistry } from '../../src/adapters/postgres/postgres-api-key-registry.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { usePostgresSchemas } from './postgres-stores-fixture.js';

const schemas = usePostgresSchemas();

describeApiKeyRegistryContract(
  'PostgresApiKeyRegistry',
  async () => {
    const { db, drop } = await schemas.fresh();
    return { registry: new PostgresApiKeyRegistry(db, new SystemClock()), cleanup: drop };
  },
  { numRuns: 20 },
);

describeKeyAdminContract('PostgresApiKeyRegistry', async (clock) => {
  const { db, drop } = await schemas.fresh();
  return { registry: new PostgresApiKeyRegistry(db, clock), cleanup: drop };
});
