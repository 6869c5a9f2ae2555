import { defineConfig } from 'vitest/config';

// The unit suite Stryker runs against each mutant (stryker.config.mjs): no e2e, CLI or pseudo-terminal tests,
// which run the built binary in dist/ and so never see a mutant in src/.
export default defineConfig({
  test: {
    include: ['test/{protocol,transport,session,client}/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
