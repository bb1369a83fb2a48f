import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/real: the real-server lane only (npm run test:real, vitest.real.config.ts)
    exclude: ['**/node_modules/**', 'test/real/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end files start servers and workers and mostly wait on them: three files at
    // once keep two cores busy without starving a test of CPU for long.
    maxWorkers: 3,
    pool: 'forks',
    // Tests read the CLI's output as plain text; picocolors colours it when CI=true (as on the
    // CI machine) or FORCE_COLOR is set, and NO_COLOR wins over both.
    env: { NO_COLOR: '1' },
  },
});
