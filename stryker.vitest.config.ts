import { defineConfig } from 'vitest/config';

// The unit suite Stryker runs against each mutant (stryker.config.mjs): no e2e, CLI or pseudo-terminal tests,
// which run the built binary in dist/ and so never see a mutant in src/.
// MUTATE_TESTS narrows it (a glob): a folder's own tests kill fewer mutants than the whole unit suite, so the
// score they give is a lower bound, reached in a fraction of the time (README, Development).
export default defineConfig({
  test: {
    include: [process.env.MUTATE_TESTS ?? 'test/{protocol,transport,session,client}/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
