// @ts-check
import path from 'node:path';
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
const FEATURES = ['checkout', 'payments', 'reservations', 'invoices', 'booking', 'webhooks', 'embed'];
/** The arrows between feature rooms that docs/architecture.md draws; every other one fails lint. */
const FEATURE_ARROWS = {
  invoices: [],
  checkout: [],
  payments: [],
  reservations: [],
  webhooks: [],
  booking: [],
  embed: [],
};
const FLOOR = forbid(
  [...FEATURES, 'journal', 'sessions'],
  'the floor (primitives, config, common, redis, metrics, health, docs, upstream, auth) never imports a feature, the journal or the sessions',
);
/** The rooms of the floor other than primitives/, which stands below all of them. */
const ABOVE_PRIMITIVES = ['config', 'common', 'redis', 'metrics', 'health', 'docs', 'upstream', 'auth'];
/** The wiring beside main.ts imports every room; a room importing it back would import everything. */
const NO_APP = {
  regex: '^(\\.\\./)+(app\\.(factory|module)|http-hooks|main|write-openapi|platform-check(-write)?)$',
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

/*
 * Only its owner writes a session record or a journal key: a store write (a KeyValueStore or
 * StoreOutbox call, or a batch step that is not a read) whose key comes from a builder of the
 * sessions' keys fails outside sessions/, one from a builder of the journal's keys outside journal/.
 * The key is followed through the expression, the variables it was assigned from, the class fields it
 * was set in and the functions or methods of the file that build it; a key handed in as a parameter
 * is not. Reads stay allowed.
 */
const STORE_WRITES = new Set([
  'set',
  'take',
  'delete',
  'deleteIfEquals',
  'extendIfEquals',
  'replaceIfVersion',
  'indexAdd',
  'indexRemove',
  'claimBeside',
  'releaseSlot',
  'pauseSlots',
  'write',
]);
const READ_STEPS = new Set(['get', 'ttl', 'requireEquals', 'requireAbsent']);
const nameOf = (property) => (property.type === 'Identifier' ? property.name : property.type === 'Literal' ? property.value : null);
const bare = (node) =>
  ['TSAsExpression', 'TSSatisfiesExpression', 'TSNonNullExpression'].includes(node.type) ? bare(node.expression) : node;
const noRawOwnedWrite = {
  meta: {
    type: 'problem',
    schema: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          builders: { type: 'array', items: { type: 'string' } },
          // The one key of what a builder answers that the family is (only) or is not (except).
          only: { type: 'array', items: { type: 'string' } },
          except: { type: 'array', items: { type: 'string' } },
          message: { type: 'string' },
        },
        required: ['builders', 'message'],
        additionalProperties: false,
      },
    },
  },
  create(context) {
    const { sourceCode } = context;
    // A name after a dot, or before a colon, is no variable: `x.journal` does not read a variable `journal`.
    const named = (node, key) =>
      !node.computed && ((node.type === 'MemberExpression' && key === 'property') || (node.type === 'Property' && key === 'key'));
    const children = (node) =>
      (sourceCode.visitorKeys[node.type] ?? [])
        .filter((key) => !named(node, key))
        .flatMap((key) => [node[key]].flat())
        .filter((child) => child && typeof child.type === 'string');
    /** Whether a builder's answer, as `call` uses it, is of the family: `.card` of reservationWrites(), say. */
    const memberOf = (call) =>
      call.parent?.type === 'MemberExpression' && call.parent.object === call ? nameOf(call.parent.property) : null;
    const picked = (call, { only, except }) => (only ? only.includes(memberOf(call)) : !except?.includes(memberOf(call)));
    /** Whether `node` is built, anywhere in it or in what it was assigned from, by one of the family's builders. */
    const builtBy = (node, family, seen = new Set()) => {
      if (!node || seen.has(node)) return false;
      seen.add(node);
      // `this.writesOf(target).booking`: a record beside the writes, whatever builds the keys inside.
      if (node.type === 'CallExpression' && family.except?.includes(memberOf(node))) return false;
      if (
        node.type === 'CallExpression' &&
        node.callee.type === 'MemberExpression' &&
        family.builders.includes(nameOf(node.callee.property)) &&
        picked(node, family)
      )
        return true;
      if (node.type === 'Identifier') {
        let scope = sourceCode.getScope(node);
        while (scope && !scope.set.has(node.name)) scope = scope.upper;
        const variable = scope?.set.get(node.name);
        const functions = (variable?.defs ?? []).filter((def) => def.type === 'FunctionName').map((def) => def.node);
        const sources = [...(variable?.references ?? []).map((reference) => reference.writeExpr), ...functions];
        return sources.some((source) => builtBy(source, family, seen));
      }
      if (node.type === 'MemberExpression' && node.object.type === 'ThisExpression' && !node.computed) {
        // A class field or method: its initializer, every `this.<name> =` in the class, the method's body.
        let body = node.parent;
        while (body && body.type !== 'ClassBody') body = body.parent;
        const sources = [];
        const visit = (child) => {
          const field = child.type === 'AssignmentExpression' && child.left.type === 'MemberExpression' ? child.left : null;
          if (['PropertyDefinition', 'MethodDefinition'].includes(child.type) && nameOf(child.key) === node.property.name)
            sources.push(child.value);
          if (field?.object.type === 'ThisExpression' && nameOf(field.property) === node.property.name) sources.push(child.right);
          children(child).forEach(visit);
        };
        if (body) visit(body);
        return sources.some((source) => builtBy(source, family, seen));
      }
      return children(node).some((child) => builtBy(child, family, seen));
    };
    const check = (keys) => {
      for (const key of keys) {
        const family = context.options.find((candidate) => builtBy(key, candidate));
        if (family) context.report({ node: key, message: family.message });
      }
    };
    return {
      CallExpression(call) {
        const method = call.callee.type === 'MemberExpression' ? nameOf(call.callee.property) : null;
        // delete takes several keys; claimBeside writes its first and only reads the key beside it.
        if (STORE_WRITES.has(method)) check(method === 'delete' ? call.arguments : call.arguments.slice(0, 1));
      },
      ObjectExpression(object) {
        const property = (name) => object.properties.find((p) => p.type === 'Property' && !p.computed && nameOf(p.key) === name);
        const op = property('op');
        const key = property('key');
        if (!op || !key) return;
        const value = bare(op.value);
        if (value.type !== 'Literal' || !READ_STEPS.has(value.value)) check([key.value]);
      },
    };
  },
};
/**
 * A batch step written out (`{ op: … }`) outside redis/, journal/ and the sessions' store: every
 * other room builds its steps with redis/'s `steps`, named by what they mean.
 */
const STEP_WRITERS = ['src/redis/**/*.ts', 'src/journal/**/*.ts', 'src/sessions/checkout-sessions.store.ts'];
const BATCH_STEPS = [
  {
    selector: "ObjectExpression > Property[computed=false][key.name='op']",
    message:
      "only redis/, journal/ and the sessions' store write batch steps out: build them with redis/'s `steps` (docs/architecture.md rule 2)",
  },
];
/**
 * docs/architecture.md rule 4: a feature's file imports at most `max` names from journal/, counted
 * over all its import lines; a write kind's own file (*.write-kind.ts) is the journal's plug, not a use.
 */
const journalDoor = {
  meta: { type: 'problem', schema: [{ type: 'integer', minimum: 1 }] },
  create(context) {
    const max = context.options[0] ?? 4;
    const fromJournal = (source) =>
      source.startsWith('.') &&
      path.resolve(path.dirname(context.filename), source).includes(`${path.sep}src${path.sep}journal${path.sep}`);
    let count = 0;
    return {
      ImportDeclaration(node) {
        if (!fromJournal(String(node.source.value))) return;
        count += node.specifiers.length;
        if (count > max)
          context.report({
            node,
            message: `a feature imports at most ${max} names from journal/ (this file: ${count}); declare a write kind and call the journal's one door (docs/write-journal.md)`,
          });
      },
    };
  },
};
const MAP_RULES = { plugins: { map: { rules: { 'no-raw-owned-write': noRawOwnedWrite, 'journal-door': journalDoor } } } };
const SESSION_KEYS = {
  // readable: the session SessionState lets another room read beside a key of its slot; storedAt, the store's own.
  builders: ['checkoutSession', 'untaggedCheckoutSession', 'legacyCheckoutSession', 'storedAt', 'readable'],
  message: "only sessions/ writes a checkout session's record: change it by a move of SessionState (docs/product-spec.md §3.3)",
};
/** A write target's records that its write kinds keep beside their writes: the card on file, a quote's booking. */
const RECORDS_BESIDE = ['card', 'booking'];
/** The builders of a write target's keys; writesOf is ReservationLeases' name for the same two. */
const TARGET_WRITES = ['reservationWrites', 'quoteWrites', 'writesOf'];
const JOURNAL_KEYS = {
  builders: [...TARGET_WRITES, 'journal', 'followUps'],
  except: RECORDS_BESIDE,
  message:
    "only journal/ writes the journal's keys (intents, the open-intent pointer, lease, spacing, follow-ups, generation): hand WriteJournal a write kind (docs/write-journal.md)",
};
const RECORD_KEYS = {
  builders: TARGET_WRITES,
  only: RECORDS_BESIDE,
  message:
    "only its owner writes a record kept beside a target's writes: the card on file through CardsOnFile (sessions/cards-on-file.ts) or the payment-method kind, a quote's booking through the reservation-create kind",
};
/** The owners of the records beside a target's writes, and the journal that writes them with an outcome. */
const RECORD_OWNERS = [
  'src/sessions/cards-on-file.ts',
  'src/payments/payment-method.write-kind.ts',
  'src/booking/reservation-create.write-kind.ts',
  'src/journal/**/*.ts',
];
const ownedWrites = (files, ...families) => ({
  files,
  ignores: ['**/*.spec.ts'],
  ...MAP_RULES,
  rules: { 'map/no-raw-owned-write': ['error', ...families] },
});

export default tseslint.config(
  { ignores: ['dist/**', 'clients/dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'test-artifacts/**'] },
  // The pages' scripts as served, compiled from browser/*.ts (npm run browser): the sources are linted, type-checked.
  { ignores: ['src/embed/public/frame.js', 'src/embed/public/frame-words.js', 'sandbox/demo/public/demo.js'] },
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
  boundaries(['src/{common,metrics,health,docs}/**/*.ts'], [FLOOR]),
  // The clock and the bounded map stand below every room, so any room, redis/ among them, may use them.
  boundaries(['src/primitives/**/*.ts'], [FLOOR, forbid(ABOVE_PRIMITIVES, 'primitives/ stands below every room and imports none')]),
  // Configuration is read before any other room exists: config/ imports none of them.
  boundaries(
    ['src/config/**/*.ts'],
    [
      FLOOR,
      forbid(['primitives', 'common', 'redis', 'metrics', 'health', 'docs', 'upstream'], 'config/ is read first and imports no other room'),
    ],
  ),
  boundaries(['src/upstream/**/*.ts'], [FLOOR], ONLY_STORE_REDIS),
  // common/ keeps its idempotency records and limits in the store, so the store never imports common/.
  boundaries(
    ['src/redis/**/*.ts'],
    [
      FLOOR,
      forbid(['common'], 'redis/ is below common/, whose records it stores: it imports the floor beneath it (config, metrics, primitives)'),
    ],
    ONLY_UPSTREAM_HTTP,
  ),
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
    rules: { 'no-restricted-syntax': ['error', ...WRITE_SENDS, ...NO_DYNAMIC_IMPORTS, ...BATCH_STEPS] },
  },
  {
    // The rooms that speak the store's step language (docs/architecture.md rule 2).
    files: STEP_WRITERS,
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...WRITE_SENDS, ...NO_DYNAMIC_IMPORTS] },
  },
  {
    files: ['src/upstream/**/*.ts', 'src/**/*.write-kind.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...NO_DYNAMIC_IMPORTS, ...BATCH_STEPS] },
  },
  { files: ['src/main.ts'], rules: { 'no-restricted-syntax': ['error', ...WRITE_SENDS] } },
  // A session record is written by sessions/ alone, a journal key by journal/ alone (docs/architecture.md rule 4);
  // the specs seed the store as they need.
  ownedWrites(['src/**/*.ts'], SESSION_KEYS, JOURNAL_KEYS, RECORD_KEYS),
  ownedWrites(['src/sessions/**/*.ts'], JOURNAL_KEYS, RECORD_KEYS),
  {
    files: FEATURES.map((name) => `src/${name}/**/*.ts`),
    ignores: ['**/*.spec.ts', 'src/**/*.write-kind.ts'],
    ...MAP_RULES,
    rules: { 'map/journal-door': ['error', 4] },
  },
  ownedWrites(['src/journal/**/*.ts'], SESSION_KEYS),
  ownedWrites(
    RECORD_OWNERS.filter((file) => !file.startsWith('src/journal/')),
    SESSION_KEYS,
    JOURNAL_KEYS,
  ),
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
    // The pages' scripts in TypeScript, typed against the DOM and the client: the project service lints
    // each with browser/tsconfig.json, the nearest to it.
    files: ['browser/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Plain ES modules the browser loads as they are, written by hand (embed.js, returned.js, site.js).
    files: ['sandbox/demo/public/**/*.js', 'src/embed/public/**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    // The site's page loads embed.js as a classic script (one tag, no module): it says its problems on the console.
    files: ['src/embed/public/embed.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ignores: ['sandbox/demo/public/**', 'src/embed/public/**'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
    rules: { 'no-console': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
