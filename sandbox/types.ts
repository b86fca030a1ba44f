/** Shapes shared by the sandbox's hosts, its state and its control surface. */

export const SANDBOX_CLIENT_ID = 'sandbox-client-id';
export const SANDBOX_CLIENT_SECRET = 'sandbox-client-secret';

/** Stable names the control surface uses to aim faults and read counters. */
export const SANDBOX_ROUTES = [
  'token',
  'listings',
  'listing',
  'providerByListing',
  'reservation',
  'guest',
  'folioOverview',
  'folioItems',
  'payments',
  'paymentMethods',
  'listPaymentMethods',
  'invoiceItems',
  'invoiceItemsDeprecated',
  'tokenize',
  'issuerPage',
  'issuerAction',
  'calendar',
  'createQuote',
  'quote',
  'guests',
  'guestsList',
  'reservationFromQuote',
  'reservationStatus',
  'chargeAuthPage',
  'chargeAuthAction',
  'sdkScript',
  'sdkForm',
] as const;

export type SandboxRoute = (typeof SANDBOX_ROUTES)[number];

/**
 * How the sandbox reads the places where the platform's reference is ambiguous (docs/upstream.md):
 * the service must work under either reading, so tests switch them.
 */
export interface SandboxReadings {
  /** Payment (and attempt) statuses as the reference's examples write them, `SUCCEEDED`, or in lower case. */
  paymentStatusCase: 'upper' | 'lower';
  /**
   * Whether a payment method the platform answers (an attach, or a list asked by reservationId) names
   * that reservationId again. The one production answer published does not (it names the booking's
   * confirmationCode): that is the default.
   */
  listEchoesReservationId: boolean;
  /** `reuse=false` on the list: only methods attached with `reuse: false`, or no filter at all. */
  reuseFalseLists: 'notReusable' | 'all';
  /**
   * The current invoice-item endpoint's 200: the updated folio with the new item (the reference's
   * words, no schema and no published example) or the created item alone.
   */
  invoiceItemAnswer: 'folio' | 'item';
  /** A list of the current surface (reservations-v3, payments, payment methods): a bare array, as the reference, or `{results}`. */
  listWrapper: 'bare' | 'results';
  /**
   * The payment-method list's reservation filter: honoured, or ignored (every card of the reservation's
   * guest, whom the platform merges by email across bookings, each naming its own booking's code).
   */
  methodListFilter: 'honoured' | 'ignored';
  /** Reservations the current read answers nothing for though they exist (a published support case). */
  reservationsV3Misses: string[];
  /** The legacy reservation read: retired on 2027-03-01 (404), or still served. */
  legacyRoutes: 'retired' | 'served';
  /** The guest's legacy payment-method routes: served (deprecated, no removal date published), or retired (404). */
  legacyPaymentMethodRoutes: 'served' | 'retired';
  /**
   * The payments list: without summary fields (a list, as `listWrapper` says), or an object with the
   * list under `results` beside the reservation's `totalPaid` and `balanceDue` (names inferred).
   */
  paymentSummary: 'absent' | 'present';
  /** The overview's `fields`: only the published names (any other refused 400, naming it), or the third-party list too. */
  overviewFields: 'published' | 'seen';
  /**
   * Where the guest's email is answered: in the single read `GET /guests-crud/{id}` (its schema's
   * `email`), or only in the guest list (the guest reports guide: "Included in the single guest request? no").
   */
  guestEmailIn: 'single' | 'list';
  /** The name the guest's email is answered under, in the single read and the list alike. */
  guestEmailField: 'email' | 'guestEmail';
  /**
   * What a payment-method item (a list's, an attach's) names of its booking: its confirmationCode (the
   * one production item published), its reservationId, both, or neither. `listEchoesReservationId`
   * still adds the reservationId to whichever this names.
   */
  methodNames: 'code' | 'reservationId' | 'both' | 'neither';
  /**
   * Where a v2 reservation webhook names its event: `event` (every published legacy payload's place;
   * its id then at `data.reservation.id`) or `eventType` (its id at `data.reservationId`). Unpublished.
   */
  reservationWebhookEventField: 'event' | 'eventType';
}

export const DEFAULT_READINGS: SandboxReadings = {
  paymentStatusCase: 'upper',
  listEchoesReservationId: false,
  reuseFalseLists: 'notReusable',
  invoiceItemAnswer: 'folio',
  listWrapper: 'bare',
  methodListFilter: 'honoured',
  reservationsV3Misses: [],
  legacyRoutes: 'retired',
  legacyPaymentMethodRoutes: 'served',
  paymentSummary: 'absent',
  overviewFields: 'published',
  guestEmailIn: 'single',
  guestEmailField: 'email',
  methodNames: 'code',
  reservationWebhookEventField: 'event',
};

/**
 * The readings a sandbox starts with: the defaults (the platform of 2027), with the legacy reservation
 * read served when the service beside it is sent back to it (GUESTY_API_SURFACE or
 * GUESTY_RESERVATIONS_SURFACE=legacy), as the platform serves it until 2027-03-01.
 */
export function startingReadings(): SandboxReadings {
  const reservations = process.env.GUESTY_RESERVATIONS_SURFACE ?? process.env.GUESTY_API_SURFACE;
  return { ...DEFAULT_READINGS, legacyRoutes: reservations === 'legacy' ? 'served' : 'retired' };
}

/** The platform's calendar webhooks: the current one and the legacy one it replaces. */
export type CalendarWebhookKind = 'calendar.updated.v2' | 'listing.calendar.updated';

export interface SandboxRateLimits {
  perSecond: number;
  perMinute: number;
  perHour: number;
}

export interface SandboxOptions {
  host?: string;
  apiPort?: number;
  payPort?: number;
  clientId?: string;
  clientSecret?: string;
  rateLimits?: Partial<SandboxRateLimits>;
  /** Access tokens one client id may mint in any rolling 24 h. */
  tokensPerDay?: number;
  tokenTtlSeconds?: number;
  /** How long after an attach the payment shows in money.payments (the upstream is eventually consistent). */
  paymentVisibilityDelayMs?: number;
  /** How long after a payment is due (and shows) its charge settles: PENDING → SUCCEEDED / FAILED / PENDING_AUTH. */
  chargeSettleDelayMs?: number;
  /** The `whsec_` secret webhooks are signed with; a fresh one per instance when absent. */
  webhookSecret?: string;
  /** Where the platform's webhooks go (the service beside the sandbox); none are sent while unset. */
  webhookUrl?: string;
  /** Fixed latency added to every answer of both hosts, for benchmarks. */
  latencyMs?: number;
  /**
   * Whether a guest create with an email the platform knows answers that guest (merged, the default)
   * or makes another record: nothing published says which the platform does, so the product is tested both ways.
   */
  mergeGuestsByEmail?: boolean;
  /** The legacy reservation read retired on 2027-03-01: served or retired from the start (and after every reset); else by the surface variables. */
  legacyRoutes?: SandboxReadings['legacyRoutes'];
  clock?: () => number;
}

export interface SandboxUrls {
  apiUrl: string;
  authUrl: string;
  payUrl: string;
}

export interface ForceStatusOptions {
  /** How many requests get the forced answer; unlimited when absent. */
  times?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface DropConnectionOptions {
  times?: number;
  /** The request is carried out and only the answer is lost (a write that happened but looks failed). */
  afterHandling?: boolean;
}

/** A write the platform carries out late: it acts `actAfterMs` after the request arrives, answers later or never. */
export interface SlowWriteOptions {
  /** How long after arrival the platform carries the request out. */
  actAfterMs: number;
  /** How long after arrival the answer is sent (at least `actAfterMs`; that when absent). */
  answerAfterMs?: number;
  /** The platform acts, then the connection is destroyed without an answer. */
  dropAnswer?: boolean;
  /** How many requests are slowed; unlimited when absent. */
  times?: number;
}

/** What the platform did with one request it carried out. */
export interface ActedRequest {
  route: SandboxRoute | 'unknown';
  method: string;
  /** The status of the answer it prepared (whether or not the answer reached the caller). */
  status: number;
  /** Sandbox clock when it acted, in ms. */
  time: number;
}

export interface SandboxCounters {
  tokensMinted: number;
  requests: Partial<Record<SandboxRoute | 'unknown', number>>;
  /** 429 answers sent by the /v1 rate limiter. */
  rateLimited: number;
  /** Tokenization requests that carried an Authorization header (a credential sent where it is not needed). */
  tokenizeWithAuthorization: number;
}

export interface RequestLogEntry {
  route: SandboxRoute | 'unknown';
  /** The reference's path template of an Open API route (`/guests/{id}/payment-methods`): which surface answered. */
  reference?: string;
  method: string;
  /** 0 when the connection was dropped without an answer. */
  status: number;
  /** Sandbox clock at arrival, in ms. */
  time: number;
}

export interface CreateReservationInput {
  listingId: string;
  guestEmail: string;
  guestName?: string;
  balanceDue: number;
  currency: string;
}

export type ThreeDsOutcome = 'not_required' | 'pending' | 'authenticated' | 'failed';

/** A card token as the control surface shows it: never the card number or CVC. */
export interface CardTokenView {
  _id: string;
  paymentProviderId: string;
  listingId: string;
  card: { brand: string; last4: string; exp_month: string; exp_year: string };
  threeDS: {
    required: boolean;
    outcome: ThreeDsOutcome;
    amount: number;
    currency: string;
    successURL?: string;
    failureURL?: string;
  };
  used: boolean;
  createdAt: string;
}

export interface SandboxControl {
  /** Back to a fresh instance: fixtures, tokens, counters, faults, limits and clock offset. */
  reset(): void;
  advanceClock(ms: number): void;
  now(): number;
  setRouteDelay(route: SandboxRoute, ms: number): void;
  forceStatus(route: SandboxRoute, status: number, options?: ForceStatusOptions): void;
  dropConnection(route: SandboxRoute, options?: DropConnectionOptions): void;
  /** The platform carries the route's requests out late (past the caller's timeout), then answers late or drops. */
  slowWrite(route: SandboxRoute, options: SlowWriteOptions): void;
  /** The route's slow writes still waiting to act act now (the test decides when the platform acts); answers how many. */
  actNow(route: SandboxRoute): number;
  /** Resolves when the route's next `times` (1) requests, counted from this call, have been carried out. */
  whenActed(route: SandboxRoute, times?: number): Promise<ActedRequest[]>;
  clearFaults(): void;
  revokeAllTokens(): void;
  setListingProvider(listingId: string, paymentProviderId: string): void;
  setProviderStatus(paymentProviderId: string, status: 'ACTIVE' | 'INACTIVE'): void;
  createReservation(input: CreateReservationInput): { reservationId: string; guestId: string };
  /**
   * The property (or the guest) ends the reservation at the platform, as its cancel guide pushes it:
   * `canceled` (the default), `declined` or `closed`. It stops holding its dates.
   */
  cancelReservation(id: string, status?: 'canceled' | 'declined' | 'closed'): void;
  setRateLimits(limits: Partial<SandboxRateLimits>): void;
  readonly counters: SandboxCounters;
  readonly requestLog: readonly RequestLogEntry[];
  /** The reservation as GET /v1/reservations/:id shows it now; `settled` also shows payments still invisible. */
  getReservation(id: string, options?: { settled?: boolean }): Record<string, unknown> | undefined;
  getToken(id: string): CardTokenView | undefined;
  getPaymentMethods(guestId: string): Record<string, unknown>[];
  /** Guests whose email is this one (case-insensitive): at most one while the sandbox merges guests by email. */
  getGuestsByEmail(email: string): Record<string, unknown>[];
  /** Every reservation the platform holds for this guest, whatever its status: how many a booking made. */
  getGuestReservations(guestId: string): { _id: string; status: string; listingId: string }[];
  /** The upstream quote as the sandbox keeps it (its reservationId once booked). */
  getQuote(id: string): Record<string, unknown> | undefined;
  /** Charges what is due now (as the platform's scheduler would on its next tick) and sends its webhooks. */
  settlePayments(): void;
  /**
   * The platform slow to charge: while held, payments that come due stay PENDING (two instalments
   * due at once both show as scheduled); `holdCharges(false)` charges what is due at once.
   */
  holdCharges(held?: boolean): void;
  /** The listing's auto-payment policy for payments scheduled from now on. */
  setPaymentPolicy(listingId: string, policy: 'atBooking' | 'split' | 'beforeCheckIn'): void;
  /** Where signed webhooks go; undefined stops sending. */
  setWebhookTarget(url: string | undefined): void;
  readonly webhookSecret: string;
  readonly webhookDeliveries: readonly { id: string; type: string; status: number; time: number }[];
  /** Resolves once every webhook sent so far was answered. */
  webhooksSettled(): Promise<void>;
  /** The owner blocks a listing's nights from `from` to `to` (YYYY-MM-DD, both included); the calendar webhooks go out. */
  blockNights(listingId: string, from: string, to: string): void;
  /** A channel commission on the fares, in percent, for quotes from now on: their `hostPayout` is the host's net (0 until changed). */
  setChannelCommission(percent: number): void;
  /** Reads the reference's ambiguous places the other way (reset restores DEFAULT_READINGS). */
  setReadings(readings: Partial<SandboxReadings>): void;
  /** Which calendar webhooks a calendar change sends (both until changed; reset restores both). */
  setCalendarWebhooks(kinds: CalendarWebhookKind[]): void;
  /**
   * A payment the property takes on the reservation, visible at once: a charge (SUCCEEDED unless
   * `status`), or an authorization hold (`hold`: `authorization` or `securityDeposit`), never paid until captured.
   */
  addPayment(
    reservationId: string,
    payment: { amount: number; status?: 'SUCCEEDED' | 'PENDING' | 'PENDING_AUTH' | 'FAILED'; hold?: 'authorization' | 'securityDeposit' },
  ): { paymentId: string };
  /** Captures a hold once, in full unless `amount`: a new SUCCEEDED payment, not linked to the hold in any answer. */
  capturePayment(reservationId: string, holdId: string, options?: { amount?: number }): { paymentId: string };
  /** Refunds a succeeded payment, in full (what is left of it) unless `amount`; SUCCEEDED unless `status` (PROCESSING, PENDING, FAILED). */
  refundPayment(
    reservationId: string,
    paymentId: string,
    refund?: { amount?: number; status?: 'SUCCEEDED' | 'PROCESSING' | 'PENDING' | 'FAILED' },
  ): { refundId: string };
  /** A refund on its way settles (SUCCEEDED) or fails at the provider. */
  settleRefund(reservationId: string, paymentId: string, refundId: string, status: 'SUCCEEDED' | 'FAILED'): void;
}

export interface RunningSandbox {
  urls: SandboxUrls;
  control: SandboxControl;
  stop(): Promise<void>;
}
