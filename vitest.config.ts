import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-build.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Server and Redis tests bind ports and spawn processes: two cores, so two workers.
    maxWorkers: 2,
  },
});
