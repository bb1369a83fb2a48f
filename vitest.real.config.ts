import { defineConfig } from 'vitest/config';

/**
 * The real-server lane (`npm run test:real`): the end-to-end suites again, each test file on a
 * real `temporal server start-dev` of its own (NAVIGATOR_TEST_SERVER=temporal, see
 * src/devserver/testing.ts). Pure-code suites (lisp, navigator, llm, ...) do not touch a
 * server and stay in `npm test` only, as do the tests of the embedded server's own
 * internals named below.
 */
export default defineConfig({
  test: {
    include: [
      'test/devserver/**/*.test.ts',
      'test/mission/**/*.test.ts',
      'test/plans/e2e-*.test.ts',
      'test/plans/cli.test.ts',
      'test/examples/**/*.test.ts',
      'test/console/**/*.test.ts',
      'test/codec/**/*.test.ts',
      'test/telemetry/**/*.test.ts',
      'test/client/**/*.test.ts',
      'test/real/**/*.test.ts',
      'test/payloads/**/*.test.ts',
      'test/history/**/*.test.ts',
    ],
    exclude: [
      // the embedded server's own pieces, not behaviour a client sees
      'test/devserver/visibility-query.test.ts',
      'test/devserver/storage.test.ts',
      'test/devserver/cli.test.ts',
      'test/devserver/module-order.test.ts',
      // a retention of one second: a real server keeps closed workflows at least an hour
      'test/devserver/retention.test.ts',
    ],
    // NO_COLOR: the CLI's output is read as plain text (see vitest.config.ts)
    env: { NAVIGATOR_TEST_SERVER: 'temporal', NO_COLOR: '1' },
    // No retries: a test that fails once fails the lane. (The lane retried twice while a
    // console page of a mission that had just completed queried it and, under load, could wait
    // 30 s for a worker; closed runs are now read from their history, never queried.)
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    pool: 'forks',
  },
});
