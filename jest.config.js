// Two tiers, one run by default (`npm test`): unit specs beside the code (src/**/*.spec.ts: services
// against the in-memory store and fakes of one seam, no Redis, no network, no real waits) and
// end-to-end specs in test/ (*.e2e-spec.ts: the whole app on real Redis against the sandbox).
// `npm run test:unit` runs the first tier alone.
const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
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
