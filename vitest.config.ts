import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn the built binary and loopback servers; two workers fit the 2-core machine.
    maxWorkers: 2,
  },
});
