/** The kit's fixture of record stores (src/testing/stores-fixture.ts). */
export { claimOf, pagedPets, type CreateStores, type StoresFixture } from '../../src/testing/stores-fixture.js';
