import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn the built binary and loopback servers and spend much of their time waiting on them:
    // four workers keep a 2-core machine busy (three left it idle enough that CI took over 10 minutes).
    maxWorkers: 4,
  },
});
