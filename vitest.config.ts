import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end files start servers and workers; two cores cannot run many at once.
    maxWorkers: 2,
    pool: 'forks',
  },
});
