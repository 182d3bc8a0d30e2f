import { idempotencyStoreChecks } from '../../src/testing/idempotency-store-contract.js';
import { describeChecks } from './describe-checks.js';
import type { CreateStores } from './stores-fixture.js';

/** The kit's IdempotencyStore contract (src/testing/idempotency-store-contract.ts), run by vitest. */
export const describeIdempotencyStoreContract = (adapterName: string, create: CreateStores): void => {
  describeChecks(`${adapterName} fulfils the IdempotencyStore contract`, idempotencyStoreChecks(create));
};
