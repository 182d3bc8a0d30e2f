import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { postgresStores, usePostgresSchemas } from './postgres-stores-fixture.js';

const schemas = usePostgresSchemas();

describePetRepositoryContract('PostgresPetRepository', postgresStores(schemas), { numRuns: 30 });
describeOrderRepositoryContract('PostgresOrderRepository', postgresStores(schemas), { numRuns: 30 });
describeIdempotencyStoreContract('PostgresIdempotencyStore', postgresStores(schemas));
