// Mutation testing (`npm run mutate`): how much of src/ the unit suite would notice breaking.
// Not part of `npm test` or CI: too slow (README, Development, has the durations).
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

// Stryker runs the tests in a copy of the project (.stryker-tmp/sandbox-…), which has no ../shared beside
// it: point the recorded-fixture helpers (test/helpers/fixtures.ts) at the real one. Workers inherit this.
process.env.GATECHAT_FIXTURES_DIR ??= realpathSync(resolve(import.meta.dirname, '..', 'shared', 'fixtures', 'recorded'));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: {
    // Only the unit folders: the e2e and CLI tests run the built binary, which a mutant in src/ never reaches.
    related: false,
    configFile: 'stryker.vitest.config.ts',
  },
  // The layers the unit folders cover; narrow with `npm run mutate -- --mutate 'src/protocol/**/*.ts'`.
  mutate: ['src/protocol/**/*.ts', 'src/transport/**/*.ts', 'src/session/**/*.ts', 'src/client/**/*.ts'],
  // Static mutants (module-level constants) force a full run per mutant and rarely say anything.
  ignoreStatic: true,
  coverageAnalysis: 'perTest',
  // Incremental: a rerun tests only mutants whose code or tests changed since the last report.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // The machine is shared (2 cores): two test processes at most.
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
};
