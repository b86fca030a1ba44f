import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/*
 * docs/architecture.md's map, as `npm run lint` enforces it: a probe file in each room importing
 * across each forbidden arrow fails lint, and the arrows the map draws pass. The probes are text
 * handed to ESLint's Node API with a path inside the room; no file is written.
 */

const root = resolve(__dirname, '../..');

interface Probe {
  /** Where the probe claims to live. */
  file: string;
  imports: string;
  /** The probe's whole text, when it is more than one import. */
  text?: string;
}

/**
 * The lint messages of each probe. ESLint runs in a child process: it loads eslint.config.mjs with
 * import(), which jest's module sandbox refuses. Only the map's rule runs, without type information.
 */
function lint(probes: Probe[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const probes = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const eslint = new ESLint({
      cwd: process.cwd(),
      ruleFilter: ({ ruleId }) => ['no-restricted-imports', 'no-restricted-syntax', 'map/no-raw-owned-write', 'map/journal-door'].includes(ruleId),
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    });
    Promise.all(probes.map((probe) => eslint.lintText(probe.text ?? "import '" + probe.imports + "';\\n", { filePath: probe.file })))
      .then((results) => process.stdout.write(JSON.stringify(results.map(([result]) => result.messages.map((m) => m.ruleId + ': ' + m.message)))));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: root, input: JSON.stringify(probes), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`eslint did not run: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[][];
}

const FLOOR = ['primitives', 'config', 'common', 'redis', 'metrics', 'health', 'docs', 'upstream'];
/** On the floor too, but imported by the wiring alone: the upstream client asks for the token by its port. */
const AUTH = 'auth';
const FEATURES = ['checkout', 'payments', 'reservations', 'invoices', 'booking', 'webhooks', 'embed'];
/** The arrows between feature rooms drawn in docs/architecture.md. */
const ARROWS: Record<string, string[]> = {
  invoices: [],
  checkout: [],
  payments: [],
  reservations: [],
  webhooks: [],
  booking: [],
  embed: [],
};

const probe = (from: string, imports: string): Probe => ({ file: `src/${from}/map-probe.ts`, imports });
const WIRE_TYPES = '../upstream/guesty.types';
const into = (room: string) => `../${room}/something`;

const forbidden: Probe[] = [
  ...[...FLOOR, AUTH].flatMap((from) => [...FEATURES, 'journal', 'sessions'].map((to) => probe(from, into(to)))),
  ...[...FLOOR, 'journal', 'sessions', ...FEATURES].map((from) => probe(from, into(AUTH))),
  ...[...FEATURES, 'sessions'].map((to) => probe('journal', into(to))),
  ...[...FEATURES, 'journal'].map((to) => probe('sessions', into(to))),
  ...FEATURES.flatMap((from) => FEATURES.filter((to) => to !== from && !ARROWS[from].includes(to)).map((to) => probe(from, into(to)))),
  ...[...FLOOR, AUTH, 'journal', 'sessions', ...FEATURES].flatMap((from) => [
    probe(from, '../../sandbox/start-sandbox'),
    probe(from, '../app.factory'),
    probe(from, '../../app.module'),
    probe(from, '../platform-check'),
  ]),
  ...[...FLOOR, AUTH, 'journal', 'sessions', ...FEATURES].filter((from) => from !== 'upstream').map((from) => probe(from, 'axios')),
  ...[...FLOOR, AUTH, 'journal', 'sessions', ...FEATURES].filter((from) => from !== 'redis').map((from) => probe(from, 'ioredis')),
  probe('common/errors', '../../sessions/checkout-session'),
  // Configuration is read first: it imports no other room (the loop config ↔ redis is gone).
  ...['primitives', 'common', 'redis', 'metrics', 'health', 'docs', 'upstream'].map((to) => probe('config', into(to))),
  // The clock and the bounded map stand below every room; the store stands below common/, which keeps records in it.
  ...[...FLOOR, AUTH].filter((to) => to !== 'primitives').map((to) => probe('primitives', into(to))),
  probe('redis', '../common/clock'),
  probe('redis', '../common/abuse/request-limits'),
  // Only the sessions' owner writes them: no other room reaches their store.
  ...FEATURES.map((from) => probe(from, '../sessions/checkout-sessions.store')),
  { file: 'src/app.module.ts', imports: './sessions/checkout-sessions.store' },
  { file: 'src/sessions/quote-bookings.ts', imports: './checkout-sessions.store' },
  // The platform's wire types stay inside upstream/: every other room, the wiring and the journal's kinds read GuestyClient's results.
  ...[...FLOOR, AUTH, 'journal', 'sessions', ...FEATURES].filter((from) => from !== 'upstream').map((from) => probe(from, WIRE_TYPES)),
  { file: 'src/payments/payment-method.write-kind.ts', imports: '../upstream/guesty.types' },
  { file: 'src/app.module.ts', imports: './upstream/guesty.types' },
  // The simulator reads only the configuration's shape and the invoice-item rules of src/.
  { file: 'sandbox/open-api/map-probe.ts', imports: '../../src/redis/redis-keys' },
  { file: 'sandbox/map-probe.ts', imports: '../src/journal/write-journal' },
];

const allowed: Probe[] = [
  ...FEATURES.flatMap((from) => [...ARROWS[from], 'journal', 'sessions', ...FLOOR].map((to) => probe(from, into(to)))),
  ...FLOOR.map((to) => probe('journal', into(to))),
  ...FLOOR.map((to) => probe('sessions', into(to))),
  ...FLOOR.map((to) => probe(AUTH, into(to))),
  ...['primitives', 'config', 'metrics'].map((to) => probe('redis', into(to))),
  ...['primitives', 'redis'].map((to) => probe('common', into(to))),
  probe('upstream', 'axios'),
  probe('redis', 'ioredis'),
  { file: 'src/main.ts', imports: './app.factory' },
  { file: 'src/app.module.ts', imports: './auth/auth.module' },
  // The go-live check's entry is wiring: it boots the product and the reads' own context.
  { file: 'src/platform-check.ts', imports: './auth/auth.module' },
  { file: 'src/platform-check-write.ts', imports: './app.factory' },
  { file: 'src/sessions/session-state.ts', imports: './checkout-sessions.store' },
  { file: 'src/sessions/sessions.module.ts', imports: './checkout-sessions.store' },
  { file: 'src/upstream/guesty-client.ts', imports: './guesty.types' },
  ...FEATURES.map((from) => probe(from, '../upstream/platform-results')),
  { file: 'src/payments/payment-method.write-kind.ts', imports: '../upstream/platform-results' },
  { file: 'sandbox/map-probe.ts', imports: '../src/config/app-config' },
  { file: 'sandbox/open-api/map-probe.ts', imports: '../../src/config/invoice-item-rules' },
];

/** A probe calling one of the upstream client's write methods, from `file`. */
const sends = (file: string, call: string): Probe => ({
  file,
  imports: '../upstream/guesty-client',
  text: `import { GuestyClient } from '../upstream/guesty-client';\nexport const send = (guesty: GuestyClient) => guesty.${call};\n`,
});
const WRITE_RULE =
  'no-restricted-syntax: an upstream write is sent only by its write kind, through the write journal (docs/write-journal.md)';

const writes = [
  'createReservationFromQuote(request, "anonymous")',
  'attachPaymentMethod(request)',
  'createGuest(guest, "anonymous")',
  'setReservationStatus("res-1", "canceled")',
  'addInvoiceItem("res-1", item)',
];
const refusedWrites = writes.flatMap((call) =>
  [
    'src/booking/bookings.service.ts',
    'src/payments/card-payments.service.ts',
    'src/invoices/invoice-items.service.ts',
    'src/journal/write-journal.ts',
  ].map((file) => sends(file, call)),
);
const passedWrites = writes.map((call) => sends('src/booking/probe.write-kind.ts', call));
/** The same sends by a computed name, which a rule on names alone would miss. */
const refusedComputedWrites: Probe[] = ["['attachPaymentMethod'](request)", '["addInvoiceItem"]("res-1", item)'].map((call) => ({
  file: 'src/payments/card-payments.service.ts',
  imports: '../upstream/guesty-client',
  text: `import { GuestyClient } from '../upstream/guesty-client';\nexport const send = (guesty: GuestyClient) => guesty${call};\n`,
}));

/** A room reaching another by a dynamic import or a relative require: the import rules cannot see it. */
const refusedDynamic: Probe[] = [
  { file: 'src/checkout/map-probe.ts', imports: '', text: "export const load = () => import('../booking/bookings.service');\n" },
  {
    file: 'src/booking/probe.write-kind.ts',
    imports: '',
    text: "export const load = () => import('../../payments/card-payments.service');\n",
  },
  {
    file: 'src/reservations/map-probe.ts',
    imports: '',
    text: "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const loaded: unknown = require('../invoices/invoices.module');\n",
  },
];
const DYNAMIC_RULE = 'no-restricted-syntax: a room reaches another only by a static import, which the map of docs/architecture.md checks';
const passedDynamic: Probe[] = [
  { file: 'src/main.ts', imports: '', text: "export const load = () => import('../sandbox/sandbox-mode');\n" },
];

/** A probe with the store and the key builder at hand, whose `body` writes or reads a key, from `file`. */
const touches = (file: string, body: string): Probe => ({
  file,
  imports: '',
  text:
    "import { KeyValueStore, steps } from '../redis/key-value-store';\nimport { RedisKeys } from '../redis/redis-keys';\n" +
    `export async function touch(store: KeyValueStore, keys: RedisKeys, sessions: { readable(id: string): { key: string } }, leases: { writesOf(target: unknown): { openIntent: string } }) {\n${body}\n}\n`,
});
const SESSION_WRITE_RULE =
  "map/no-raw-owned-write: only sessions/ writes a checkout session's record: change it by a move of SessionState (docs/product-spec.md §3.3)";
const JOURNAL_WRITE_RULE =
  "map/no-raw-owned-write: only journal/ writes the journal's keys (intents, the open-intent pointer, lease, spacing, follow-ups, generation): hand WriteJournal a write kind (docs/write-journal.md)";
const RECORD_WRITE_RULE =
  "map/no-raw-owned-write: only its owner writes a record kept beside a target's writes: the card on file through CardsOnFile (sessions/cards-on-file.ts) or the payment-method kind, a quote's booking through the reservation-create kind";
const STEP_RULE =
  "no-restricted-syntax: only redis/, journal/ and the sessions' store write batch steps out: build them with redis/'s `steps` (docs/architecture.md rule 2)";
/** A batch step written out in a room that is not the store's: a controller, the idempotency records, a write kind. */
const refusedSteps: Probe[] = [
  touches('src/payments/payment-method.controller.ts', "  await store.batch([{ op: 'set', key: 'k', value: 'v', ttlMs: 1 }]);"),
  touches('src/common/idempotency/idempotency.service.ts', "  await store.batch([{ op: 'requireEquals', key: 'k', value: 'v' }]);"),
  touches('src/invoices/invoice-item.write-kind.ts', "  await store.batch([{ op: 'delete', key: 'k' }]);"),
];
/** The store's own rooms write steps out; the others build them with `steps`. */
const passedSteps: Probe[] = [
  touches('src/journal/write-journal.ts', "  await store.batch([{ op: 'get', key: 'k' }]);"),
  touches('src/sessions/checkout-sessions.store.ts', "  await store.batch([{ op: 'get', key: 'k' }]);"),
  {
    file: 'src/common/idempotency/idempotency.service.ts',
    imports: '',
    text: "import { KeyValueStore, steps } from '../../redis/key-value-store';\nexport const touch = (store: KeyValueStore) => store.batch(steps.replaceHeld('k', 'claim', 'v', 1));\n",
  },
];
/** A raw store write of a session record outside sessions/: by a call, a held key, or a batch step. */
const refusedSessionWrites: Probe[] = [
  touches('src/payments/card-payments.service.ts', "  await store.set(keys.checkoutSession('ref-1'), '{}');"),
  touches('src/checkout/checkout-sessions.service.ts', "  const { key } = sessions.readable('cs_1');\n  await store.delete(key);"),
  touches(
    'src/journal/write-journal.ts',
    "  await store.batch([{ op: 'replaceIfVersion', key: keys.checkoutSession('ref-1'), expectedVersion: 1, value: '{}', ttlMs: 1 }]);",
  ),
];
/** A raw store write of the journal's open-intent pointer (or another of its keys) outside journal/. */
const refusedJournalWrites: Probe[] = [
  touches(
    'src/booking/bookings.service.ts',
    "  await store.batch([{ op: 'set', key: keys.reservationWrites('res-1').openIntent, value: 'i', ttlMs: 1 }]);",
  ),
  touches(
    'src/payments/card-payments.service.ts',
    "  const { openIntent } = leases.writesOf({ reservation: 'res-1' });\n  await store.set(openIntent, 'i');",
  ),
  touches('src/sessions/session-state.ts', "  await store.deleteIfEquals(keys.quoteWrites('q-1').openIntent, 'i');"),
];
/** A record kept beside a target's writes (the card on file, a quote's booking), written by a room that does not own it. */
const refusedRecordWrites: Probe[] = [
  touches('src/checkout/checkout-sessions.service.ts', "  await store.set(keys.reservationWrites('res-1').card, '{}');"),
  touches(
    'src/booking/bookings.service.ts',
    "  await store.batch([{ op: 'set', key: keys.quoteWrites('q-1').booking, value: '{}', ttlMs: 1 }]);",
  ),
];
/** The owners write their own keys; another room may read them where the map lets it (a session read beside a claim). */
const passedOwnedWrites: Probe[] = [
  touches(
    'src/sessions/checkout-sessions.store.ts',
    "  const key = keys.checkoutSession('ref-1');\n  await store.replaceIfVersion(key, 1, '{}', 1);",
  ),
  touches(
    'src/journal/write-journal.ts',
    "  const writes = keys.reservationWrites('res-1');\n  await store.batch([{ op: 'set', key: writes.openIntent, value: 'i', ttlMs: 1 }]);",
  ),
  touches('src/sessions/cards-on-file.ts', "  await store.set(keys.reservationWrites('res-1').card, '{}');"),
  touches('src/booking/reservation-create.write-kind.ts', "  await store.set(keys.quoteWrites('q-1').booking, '{}');"),
  touches(
    'src/payments/card-payments.service.ts',
    "  const { key } = sessions.readable('cs_1');\n  await store.batch([steps.read(key)]);\n  await store.claimBeside(keys.idempotencyRecord('s', 'k'), 'c', 1, key);",
  ),
];

/** A feature file importing `names` from journal/, over two import lines as a file may. */
const journalImports = (file: string, names: string[]): Probe => ({
  file,
  imports: '',
  text:
    `import { ${names.slice(0, 2).join(', ')} } from '../journal/write-journal';\n` +
    (names.length > 2 ? `import type { ${names.slice(2).join(', ')} } from '../journal/write-intent';\n` : '') +
    `export const used = [${names.slice(0, 2).join(', ')}];\n`,
});
const FIVE = ['WriteJournal', 'HeldTarget', 'WriteTarget', 'WriteIntent', 'IntentState'];
const refusedJournalNames: Probe[] = [
  journalImports('src/payments/card-payments.service.ts', FIVE),
  journalImports('src/booking/map-probe.ts', FIVE),
];
const passedJournalNames: Probe[] = [
  journalImports('src/payments/card-payments.service.ts', FIVE.slice(0, 4)),
  journalImports('src/booking/probe.write-kind.ts', FIVE),
  journalImports('src/sessions/map-probe.ts', FIVE),
];
const JOURNAL_DOOR_RULE =
  "map/journal-door: a feature imports at most 4 names from journal/ (this file: 5); declare a write kind and call the journal's one door (docs/write-journal.md)";

/** Every probe of this file in one ESLint run: its start-up in a child process is most of the spec's time. */
function lintAll<Groups extends Record<string, Probe[]>>(groups: Groups): { [Name in keyof Groups]: string[][] } {
  const all = lint(Object.values(groups).flat());
  let at = 0;
  const answers: Record<string, string[][]> = {};
  for (const [name, probes] of Object.entries(groups)) {
    answers[name] = all.slice(at, at + probes.length);
    at += probes.length;
  }
  return answers as { [Name in keyof Groups]: string[][] };
}

const linted = lintAll({
  forbidden,
  allowed,
  refusedWrites,
  passedWrites,
  refusedComputedWrites,
  refusedDynamic,
  refusedSteps,
  passedSteps,
  passedDynamic,
  refusedSessionWrites,
  refusedJournalWrites,
  refusedRecordWrites,
  passedOwnedWrites,
  refusedJournalNames,
  passedJournalNames,
});

describe('the map of docs/architecture.md, enforced by lint', () => {
  const { forbidden: refusals, allowed: passes } = linted;

  it('fails every forbidden arrow, saying which rule it breaks', () => {
    const unrefused = forbidden.filter((_, index) => !refusals[index].some((message) => message.startsWith('no-restricted-imports: ')));
    expect(unrefused).toEqual([]);
    expect(refusals[forbidden.findIndex((p) => p.file.includes('/reservations/') && p.imports.includes('booking'))]).toEqual([
      "no-restricted-imports: '../booking/something' import is restricted from being used by a pattern. reservations/ imports only journal, sessions, the floor (docs/architecture.md)",
    ]);
    expect(refusals[forbidden.findIndex((p) => p.file.includes('/reservations/') && p.imports === WIRE_TYPES)]).toEqual([
      "no-restricted-imports: '../upstream/guesty.types' import is restricted from being used by a pattern. the platform's wire types stay in upstream/: read GuestyClient's results, and take its requests, from upstream/platform-results (docs/architecture.md rule 1)",
    ]);
    expect(refusals[forbidden.findIndex((p) => p.file.includes('/redis/') && p.imports === '../common/clock')]).toEqual([
      "no-restricted-imports: '../common/clock' import is restricted from being used by a pattern. redis/ is below common/, whose records it stores: it imports the floor beneath it (config, metrics, primitives)",
    ]);
    expect(refusals[forbidden.findIndex((p) => p.file.includes('/booking/') && p.imports.endsWith('checkout-sessions.store'))]).toEqual([
      "no-restricted-imports: '../sessions/checkout-sessions.store' import is restricted from being used by a pattern. only sessions/ writes checkout sessions: read and move them through SessionState (docs/product-spec.md §3.3)",
    ]);
  });

  it('passes the arrows the map draws', () => {
    const refused = allowed.map((p, index) => ({ ...p, messages: passes[index] })).filter((p) => p.messages.length > 0);
    expect(refused).toEqual([]);
  });
});

describe('every upstream write through the journal, enforced by lint (docs/architecture.md rule 4)', () => {
  const { refusedWrites: refusals, passedWrites: passes } = linted;

  it('fails a feature service, or the journal itself, that calls a write method of GuestyClient', () => {
    expect(refusedWrites.filter((_, index) => !refusals[index].includes(WRITE_RULE))).toEqual([]);
  });

  it('passes a write-kind file that calls one', () => {
    expect(passes.filter((messages) => messages.length > 0)).toEqual([]);
  });
});

describe('no way around the map or the journal that lint cannot see', () => {
  it('fails a send by a computed method name (guesty["attachPaymentMethod"])', () => {
    expect(linted.refusedComputedWrites.filter((messages) => !messages.includes(WRITE_RULE))).toEqual([]);
  });

  it("fails a batch step written out beside the store's rooms, and passes one built with `steps`", () => {
    expect(linted.refusedSteps.filter((messages) => !messages.includes(STEP_RULE))).toEqual([]);
    expect(linted.passedSteps).toEqual([[], [], []]);
  });

  it('fails a dynamic import or a relative require from a room, and passes main.ts loading the simulator', () => {
    expect(linted.refusedDynamic.filter((messages) => !messages.includes(DYNAMIC_RULE))).toEqual([]);
    expect(linted.passedDynamic).toEqual([[]]);
  });
});

describe('only its owner writes a session record or a journal key, enforced by lint (docs/architecture.md rule 4)', () => {
  it('fails a raw store write of a session record outside sessions/', () => {
    expect(linted.refusedSessionWrites.filter((messages) => !messages.includes(SESSION_WRITE_RULE))).toEqual([]);
  });

  it("fails a raw store write of the journal's open-intent pointer outside journal/", () => {
    expect(linted.refusedJournalWrites.filter((messages) => !messages.includes(JOURNAL_WRITE_RULE))).toEqual([]);
  });

  it('fails a raw store write of the card on file or a quote booking outside their owners', () => {
    expect(linted.refusedRecordWrites.filter((messages) => !messages.includes(RECORD_WRITE_RULE))).toEqual([]);
  });

  it('passes the owner writing its own keys, and a session read beside a claim', () => {
    expect(linted.passedOwnedWrites).toEqual([[], [], [], [], []]);
  });
});

describe('the journal is one door, enforced by lint (docs/architecture.md rule 4)', () => {
  it('fails a feature file that imports five names from journal/, counted over its import lines', () => {
    expect(linted.refusedJournalNames.filter((messages) => !messages.includes(JOURNAL_DOOR_RULE))).toEqual([]);
  });

  it('passes four, and a write kind’s own file or a room below the features with more', () => {
    expect(linted.passedJournalNames.map((messages) => messages.filter((message) => message.startsWith('map/journal-door')))).toEqual([
      [],
      [],
      [],
    ]);
  });
});
