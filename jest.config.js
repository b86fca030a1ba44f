// Two tiers, one run by default (`npm test`): unit specs beside the code (src/**/*.spec.ts: services
// against the in-memory store and fakes of one seam, no Redis, no network, no real waits) and
// end-to-end specs in test/ (*.e2e-spec.ts: the whole app on real Redis against the sandbox).
// `npm run test:unit` runs the first tier alone.

// Both tiers compile with swc, which strips types without checking them and without loading
// TypeScript in each worker: `tsc -p tsconfig.json --noEmit` (in `npm run build`) checks every spec.
// Nest's injection reads decorator metadata; class fields keep tsconfig.json's semantics.
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc],
  },
};

module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/sandbox/**/*.spec.ts', '<rootDir>/chaos/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // The contract gate: a file fails when the product sent the sandbox a request the reference refuses.
      setupFilesAfterEnv: ['<rootDir>/test/utils/contract-gate.ts'],
    },
  ],
};
