import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.js';

/*
 * Three tiers, named by what they need:
 * - unit: no store, no child process, no build (`npm run test:unit`, under a minute; in-process
 *   HTTP servers on 127.0.0.1 only). A unit file that reaches for a store or the CLI fails at
 *   once (test/support/test-tier.ts), so a misfiled test cannot slow the tier down.
 * - integration: Redis, a Redis Cluster or PostgreSQL (`npm run test:integration`).
 * - system: the built CLI in real processes, the packed package, the browser. Only this tier
 *   builds dist/ (`npm run test:system`).
 * `npm test` runs all three.
 */

// Files that start servers or Redis processes and time their answers run after the unit and
// integration tiers, so CPU-heavy property tests cannot distort their latencies.
const SYSTEM_TESTS = [
  'test/redis/**/*.test.ts',
  // Servers on PostgreSQL (a test database of their own, or a throwaway server crashed mid-load).
  'test/postgres/**/*.test.ts',
  // Servers on PGlite in a temporary directory, one killed with SIGKILL.
  'test/pglite/**/*.test.ts',
  'test/adapters/redis-outage.test.ts',
  'test/app/cli.test.ts',
  // SIGTERM to a real process under a burst of requests.
  'test/app/shutdown.test.ts',
  'test/http/slow-clients.test.ts',
  // curl pushing 50 MB at a refusal, on both listeners.
  'test/http/refused-body.test.ts',
  // Header and keep-alive timeouts of the admin listener, waited out in real time.
  'test/app/admin-listener.test.ts',
  // The CLI with its admin listener: metrics, access log and shutdown of a real process.
  'test/app/operations.test.ts',
  // npm pack and install into a temporary project, and `npm start`: npm and servers in real processes.
  'test/package/consumer.test.ts',
  // The testing kit installed from the packed package and run by node:test and vitest there.
  'test/package/testing-kit-consumer.test.ts',
  'test/app/npm-start.test.ts',
  // The .lua files and the scripts composed of them in dist/ and the packed package, against the sources.
  'test/package/lua-in-dist.test.ts',
  // A real chromium rendering the docs page.
  'test/browser/**/*.test.ts',
  // promtool checking the metrics scrape and checking and unit-testing the shipped alert rules.
  'test/app/promtool-*.test.ts',
  // systemd-analyze verifying the systemd unit example and broken copies of it.
  'test/app/systemd-unit.test.ts',
];

// Of those, the ones that time nothing another process would distort: they wait on sleeps,
// npm and the stores. They run in the first group, beside the CPU-bound unit and integration
// tiers, on a fourth worker: after them, beside the timed files, they made the system tier 441 s
// of a whole run (its files add up to 959 s), and alone on five workers after the timed files
// 176 s more (keys-command.test.ts alone 162 s of it).
const WAITING_SYSTEM_TESTS = [
  'test/package/consumer.test.ts',
  'test/package/testing-kit-consumer.test.ts',
  'test/package/lua-in-dist.test.ts',
  'test/redis/keys-command.test.ts',
  'test/postgres/multi-instance.test.ts',
  'test/redis/multi-instance.test.ts',
  'test/redis/orders-multi-instance.test.ts',
  'test/app/cli.test.ts',
  'test/browser/**/*.test.ts',
  'test/app/npm-start.test.ts',
  'test/redis/rate-limit-status.test.ts',
  'test/app/promtool-*.test.ts',
  'test/app/systemd-unit.test.ts',
];

// In-process tests of the stores themselves, on the local Redis, Cluster and PostgreSQL.
const INTEGRATION_TESTS = [
  'test/adapters/postgres-*.test.ts',
  // The PostgreSQL store's classes on PGlite, in this process: slow to open, not a unit.
  'test/adapters/pglite-*.test.ts',
  'test/adapters/redis-*.test.ts',
  'test/adapters/rate-limiter-redis.test.ts',
  // The id-exhaustion contract on memory, Redis and PostgreSQL.
  'test/adapters/ids-exhausted.test.ts',
  'test/app/create-pet-store.test.ts',
  // Three in-process servers on the local Redis, one key on a file plan of several rules.
  'test/app/plan-rules-multi-instance.test.ts',
  'test/app/key-verbs.test.ts',
  'test/app/migrate-command.test.ts',
  'test/app/read-only-database.test.ts',
  'test/client/retries.test.ts',
  'test/support/test-postgres.test.ts',
  'test/support/test-redis.test.ts',
];

// The HTTP suites of the records again, on PETSTORE_STORE=postgres (test/support/test-pet-store.ts).
const HTTP_ON_POSTGRES = [
  'test/http/create-pet.test.ts',
  'test/http/list-pets.test.ts',
  'test/http/get-pet.test.ts',
  'test/http/update-pet.test.ts',
  'test/http/orders.test.ts',
  'test/http/order-concurrency.test.ts',
  'test/http/idempotency.test.ts',
  'test/http/concurrency.test.ts',
  'test/http/rate-limit-status.test.ts',
];

// One of them again on PETSTORE_STORE=pglite, the records through PGlite end to end: the orders and
// Idempotency-Key suites there cost a minute more of the suite's time and run the SQL they run on
// PostgreSQL, whose contracts PGlite passes too (test/adapters/pglite-stores.test.ts).
const HTTP_ON_PGLITE = ['test/http/create-pet.test.ts'];

const build = ['test/support/global-build.ts'];

export default defineConfig({
  test: {
    // Every wait a test makes is bounded by the test itself; these limits only catch a hang, so they
    // sit far above what the slowest test takes on a machine running a second suite beside it.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores, four workers in the first group: one or two of them wait on npm, processes and
    // sleeps (the waiting system files) while the others keep both cores busy. The timed system
    // files keep to three (their project's own maxWorkers).
    maxWorkers: 4,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...SYSTEM_TESTS, ...INTEGRATION_TESTS],
          env: { PETSTORE_TEST_TIER: 'unit' },
          // One module graph per worker, not per file: importing it again for each of ~90 files was
          // 75 of the tier's 90 s. The unit files share no state through modules (they pass either way).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      // One module graph per worker here too (each file keeps to a key prefix or a database of its own):
      // importing the app again for each file was 30 of the tier's 185 s of CPU.
      { extends: true, test: { name: 'integration', include: INTEGRATION_TESTS, exclude: SYSTEM_TESTS, isolate: false, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: { name: 'integration-http-on-postgres', include: HTTP_ON_POSTGRES, env: { PETSTORE_TEST_STORE: 'postgres' }, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'integration-http-on-pglite', include: HTTP_ON_PGLITE, env: { PETSTORE_TEST_STORE: 'pglite' }, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'system', include: SYSTEM_TESTS, exclude: WAITING_SYSTEM_TESTS, globalSetup: build, maxWorkers: 3, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'system-waiting', include: WAITING_SYSTEM_TESTS, globalSetup: build, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
