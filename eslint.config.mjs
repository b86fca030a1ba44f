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
const NO_SANDBOX = forbid(
  ['sandbox'],
  'the simulator is not part of the product: only sandbox mode loads it, by a dynamic import in main.ts',
);
const ONLY_UPSTREAM_HTTP = [
  { name: 'axios', message: 'only src/upstream speaks HTTP to the platform' },
  { name: '@nestjs/axios', message: 'only src/upstream speaks HTTP to the platform' },
];
const ONLY_STORE_REDIS = [{ name: 'ioredis', message: 'only src/redis talks to Redis (KeyValueStore)' }];
const FEATURES = ['checkout', 'payments', 'reservations', 'invoices', 'booking', 'webhooks'];
/** The arrows between feature rooms that docs/architecture.md draws; every other one fails lint. */
const FEATURE_ARROWS = {
  invoices: [],
  checkout: [],
  payments: [],
  reservations: [],
  webhooks: [],
  booking: [],
};
const FLOOR = forbid(
  [...FEATURES, 'journal', 'sessions'],
  'the floor (config, common, redis, metrics, health, docs, upstream, auth) never imports a feature, the journal or the sessions',
);
/** The wiring beside main.ts imports every room; a room importing it back would import everything. */
const NO_APP = {
  regex: '^(\\.\\./)+(app\\.(factory|module)|http-hooks|main|write-openapi)$',
  message: "a room never imports the app's wiring (src/*.ts)",
};
/** A session changes only by a move of its one owner: outside sessions/, its records' store is never imported. */
const ONLY_OWNER_WRITES_SESSIONS = {
  regex: '(^|/)sessions/checkout-sessions\\.store$',
  message: 'only sessions/ writes checkout sessions: read and move them through SessionState (docs/product-spec.md §3.3)',
};
/** The shared token is asked for by its port (upstream/access-tokens.ts); only the wiring imports the room that provides it. */
const NO_AUTH = forbid(
  ['auth'],
  'only the wiring imports auth/: the upstream client asks for AccessTokens (upstream/access-tokens.ts), which AuthModule provides',
);
/** The platform's wire shapes stay inside upstream/ (which imports them as ./guesty.types): every other room reads GuestyClient's results. */
const NO_WIRE_TYPES = {
  regex: '(^|/)upstream/guesty\\.types$',
  message:
    "the platform's wire types stay in upstream/: read GuestyClient's results, and take its requests, from upstream/platform-results (docs/architecture.md rule 1)",
};
const SESSIONS_BELOW = forbid([...FEATURES, 'journal'], 'sessions/ is below the features: every room asks it, it imports only the floor');
/** Inside sessions/ too, only the owner reaches the store: the room's other files ask SessionState like any room. */
const ONLY_OWNER_IN_ROOM = {
  regex: '^\\./checkout-sessions\\.store$',
  message: 'only SessionState (session-state.ts) writes checkout sessions: read and move them through it (docs/product-spec.md §3.3)',
};
const boundaries = (files, patterns, paths = [...ONLY_UPSTREAM_HTTP, ...ONLY_STORE_REDIS], others = [NO_AUTH]) => ({
  files,
  // One block per room carries all of its rules: a later block setting the rule replaces, never adds to, an earlier one.
  rules: {
    'no-restricted-imports': [
      'error',
      { paths, patterns: [NO_SANDBOX, NO_APP, ONLY_OWNER_WRITES_SESSIONS, NO_WIRE_TYPES, ...others, ...patterns] },
    ],
  },
});

const WRITE_METHODS = '/^(attachPaymentMethod|addInvoiceItem|createGuest|createReservationFromQuote|setReservationStatus)$/';
const WRITE_SENT_ONLY_BY_ITS_KIND = 'an upstream write is sent only by its write kind, through the write journal (docs/write-journal.md)';
const WRITE_SENDS = [
  { selector: `MemberExpression[property.name=${WRITE_METHODS}]`, message: WRITE_SENT_ONLY_BY_ITS_KIND },
  { selector: `MemberExpression[computed=true][property.value=${WRITE_METHODS}]`, message: WRITE_SENT_ONLY_BY_ITS_KIND },
];
const ACROSS_ROOMS = 'a room reaches another only by a static import, which the map of docs/architecture.md checks';
const NO_DYNAMIC_IMPORTS = [
  { selector: 'ImportExpression', message: ACROSS_ROOMS },
  { selector: "CallExpression[callee.name='require'][arguments.0.value=/^\\./]", message: ACROSS_ROOMS },
];

export default tseslint.config(
  { ignores: ['dist/**', 'clients/dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'test-artifacts/**'] },
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
  // The wiring beside main.ts (src/*.ts) imports every room, auth/ among them.
  boundaries(['src/**/*.ts'], [], undefined, []),
  boundaries(['src/{common,redis,metrics,health,docs}/**/*.ts'], [FLOOR]),
  // Configuration is read before any other room exists: config/ imports none of them.
  boundaries(
    ['src/config/**/*.ts'],
    [FLOOR, forbid(['common', 'redis', 'metrics', 'health', 'docs', 'upstream'], 'config/ is read first and imports no other room')],
  ),
  boundaries(['src/upstream/**/*.ts'], [FLOOR], ONLY_STORE_REDIS),
  boundaries(['src/redis/**/*.ts'], [FLOOR], ONLY_UPSTREAM_HTTP),
  // The shared token stands on the upstream's token call (only src/upstream speaks HTTP); the upstream never imports it.
  boundaries(['src/auth/**/*.ts'], [FLOOR], undefined, []),
  boundaries(
    ['src/journal/**/*.ts'],
    [forbid([...FEATURES, 'sessions'], 'the journal is below the features: they call it with its write kinds')],
  ),
  boundaries(['src/sessions/**/*.ts'], [SESSIONS_BELOW, ONLY_OWNER_IN_ROOM]),
  // The owner, the module that builds it, and the specs of the two.
  boundaries(
    ['src/sessions/{session-state,sessions.module,checkout-sessions.store,session-state.spec,checkout-sessions.store.spec}.ts'],
    [SESSIONS_BELOW],
  ),
  // Rule 5: each feature room may import only the rooms its arrows in docs/architecture.md point to.
  ...Object.entries(FEATURE_ARROWS).map(([from, to]) =>
    boundaries(
      [`src/${from}/**/*.ts`],
      [
        forbid(
          FEATURES.filter((room) => room !== from && !to.includes(room)),
          `${from}/ imports only ${[...to, 'journal', 'sessions', 'the floor'].join(', ')} (docs/architecture.md)`,
        ),
      ],
    ),
  ),
  // Every upstream write goes through the write journal: only the files that declare a write kind
  // (src/*/*.write-kind.ts: its send, how to find it on the platform) call the upstream
  // client's write methods, by name or by a computed name; a feature hands the journal a kind, a key
  // and a payload. And no room reaches another by a dynamic import or a relative require, which the
  // import rules above cannot see: only main.ts loads the simulator so, in sandbox mode.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/upstream/**', 'src/**/*.write-kind.ts', 'src/main.ts', '**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...WRITE_SENDS, ...NO_DYNAMIC_IMPORTS] },
  },
  {
    files: ['src/upstream/**/*.ts', 'src/**/*.write-kind.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...NO_DYNAMIC_IMPORTS] },
  },
  { files: ['src/main.ts'], rules: { 'no-restricted-syntax': ['error', ...WRITE_SENDS] } },
  {
    // The simulator stands beside the product: of src/ it reads only the configuration's shape and the
    // invoice-item rules it shares with the service (docs/architecture.md, rule 6).
    files: ['sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src/(?!config/(app-config|invoice-item-rules)$)',
              message: 'sandbox/ reaches src/ only through config/app-config and config/invoice-item-rules (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
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
