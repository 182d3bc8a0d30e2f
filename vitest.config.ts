import { defineConfig } from 'vitest/config';

// Files that start servers or Redis processes and time their answers run after the rest, one
// at a time, so CPU-heavy property tests on the other core cannot distort their latencies.
const PROCESS_TESTS = [
  'test/redis/**/*.test.ts',
  'test/adapters/redis-outage.test.ts',
  'test/app/cli.test.ts',
  'test/http/slow-clients.test.ts',
  // The CLI with its admin listener: metrics, access log and shutdown of a real process.
  'test/app/operations.test.ts',
  // npm pack and install into a temporary project, and `npm start`: npm and servers in real processes.
  'test/package/consumer.test.ts',
  'test/app/npm-start.test.ts',
  // A real chromium rendering the docs page.
  'test/browser/**/*.test.ts',
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
        extends: true,
        test: { name: 'processes', include: PROCESS_TESTS, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
