/**
 * This service for the HTTP bench: the CLI's startPetStore with the bench keys. They are set
 * here rather than in PETSTORE_API_KEYS of the environment because 10,000 of them exceed the
 * 128 KiB a single environment variable may hold. Store, Redis URL and prefix come from the
 * environment as for the CLI, and BENCH_UNLIMITED_PLAN gives the never-limited key another plan
 * (one of PETSTORE_PLANS).
 */
import { startPetStore } from '../../src/app/start-pet-store.js';
import { petstoreApiKeys } from '../http/keys.js';

const store = await startPetStore({ ...process.env, PETSTORE_ENV: 'test', PETSTORE_API_KEYS: petstoreApiKeys(process.env['BENCH_UNLIMITED_PLAN']) });
console.error(`listening on ${store.baseUrl}`);
process.on('SIGTERM', () => {
  store.close(1_000).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
