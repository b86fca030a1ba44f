// @ts-check
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/*
 * The map of docs/architecture.md, enforced: a wrong arrow fails `npm run lint`.
 * Floor rooms never import features; the journal imports only the floor; features import each
 * other only where the map says; the simulator is never imported by the product; only the upstream
 * client speaks HTTP to the platform and only the store talks to Redis.
 */
const room = (name) => `(^|/)${name}/`;
const forbid = (names, why) => ({ regex: `${names.map((name) => `(${room(name)})`).join('|')}`, message: why });
const NO_SANDBOX = forbid(['sandbox'], 'the simulator is not part of the product: only sandbox mode loads it, by a dynamic import in main.ts');
const ONLY_UPSTREAM_HTTP = [
  { name: 'axios', message: 'only src/upstream speaks HTTP to the platform' },
  { name: '@nestjs/axios', message: 'only src/upstream speaks HTTP to the platform' },
];
const ONLY_STORE_REDIS = [{ name: 'ioredis', message: 'only src/redis talks to Redis (KeyValueStore)' }];
const FEATURES = ['checkout', 'payments', 'invoices', 'booking', 'webhooks'];
const boundaries = (files, patterns, paths = [...ONLY_UPSTREAM_HTTP, ...ONLY_STORE_REDIS]) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { paths, patterns: [NO_SANDBOX, ...patterns] }] },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'test-artifacts/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  boundaries(['src/**/*.ts'], []),
  boundaries(['src/{config,common,redis,metrics,health,docs}/**/*.ts'], [
    forbid([...FEATURES, 'journal'], 'the floor (config, common, redis, metrics, health, upstream) never imports a feature or the journal'),
  ]),
  boundaries(['src/upstream/**/*.ts'], [forbid([...FEATURES, 'journal'], 'the floor never imports a feature or the journal')], ONLY_STORE_REDIS),
  boundaries(['src/redis/**/*.ts'], [forbid([...FEATURES, 'journal'], 'the floor never imports a feature or the journal')], ONLY_UPSTREAM_HTTP),
  boundaries(['src/journal/**/*.ts'], [forbid(FEATURES, 'the journal is below the features: they register reconcilers with it')]),
  boundaries(['src/invoices/**/*.ts'], [forbid(['checkout', 'payments', 'booking', 'webhooks'], 'invoices is used by the checkout, never the other way')]),
  boundaries(['src/checkout/**/*.ts'], [forbid(['payments', 'booking', 'webhooks'], 'the checkout does not reach into payments, booking or webhooks')]),
  {
    // Plain ES modules the browser loads as they are: demo.js imports the compiled client (npm run client).
    files: ['sandbox/demo/public/**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ignores: ['sandbox/demo/public/**'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
    rules: { 'no-console': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
