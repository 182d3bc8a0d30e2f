import { defineConfig } from 'vitest/config';

// Files that start servers or Redis processes and time their answers run after the rest, one
// at a time, so CPU-heavy property tests on the other core cannot distort their latencies.
const PROCESS_TESTS = [
  'test/redis/**/*.test.ts',
  // Servers on PostgreSQL (a test database of their own, or a throwaway server crashed mid-load).
  'test/postgres/**/*.test.ts',
  'test/adapters/redis-outage.test.ts',
  'test/app/cli.test.ts',
  // SIGTERM to a real process under a burst of requests.
  'test/app/shutdown.test.ts',
  'test/http/slow-clients.test.ts',
  // The CLI with its admin listener: metrics, access log and shutdown of a real process.
  'test/app/operations.test.ts',
  // npm pack and install into a temporary project, and `npm start`: npm and servers in real processes.
  'test/package/consumer.test.ts',
  'test/app/npm-start.test.ts',
  // A real chromium rendering the docs page.
  'test/browser/**/*.test.ts',
];

// Of those, the ones that time nothing a second process would distort: they wait on sleeps,
// npm and the stores, so they run after the timed ones, two at a time.
const WAITING_PROCESS_TESTS = [
  'test/package/consumer.test.ts',
  'test/redis/keys-command.test.ts',
  'test/postgres/multi-instance.test.ts',
  'test/redis/multi-instance.test.ts',
  'test/redis/orders-multi-instance.test.ts',
  'test/app/cli.test.ts',
  'test/browser/**/*.test.ts',
  'test/app/npm-start.test.ts',
  'test/redis/rate-limit-status.test.ts',
];

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

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-build.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: two workers.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'units', include: ['test/**/*.test.ts'], exclude: PROCESS_TESTS, sequence: { groupOrder: 0 } },
      },
      {
        // The HTTP suites of the records again, on PETSTORE_STORE=postgres (test/support/test-pet-store.ts).
        extends: true,
        test: { name: 'http-on-postgres', include: HTTP_ON_POSTGRES, env: { PETSTORE_TEST_STORE: 'postgres' }, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'processes', include: PROCESS_TESTS, exclude: WAITING_PROCESS_TESTS, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'waiting-processes', include: WAITING_PROCESS_TESTS, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
