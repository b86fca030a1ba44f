/**
 * What a person trying the sandbox needs to know, in one place: the stand-alone runner and the
 * service's sandbox mode print it, docs/sandbox.md explains it. A spec checks it against the seeded state.
 */
import { SANDBOX_TEST_CARDS } from './pay/test-cards';
import { BOOKING_TERMS, SANDBOX_COUPON } from './state/booking-state';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type SandboxUrls } from './types';

export interface SandboxListingGuide {
  listingId: string;
  paymentProviderId: string;
  currency: string;
  note: string;
}

export interface SandboxReservationGuide {
  reservationId: string;
  guestEmail: string;
  listingId: string;
  balanceDue: number;
  currency: string;
  purpose: string;
}

export const SANDBOX_LISTINGS: readonly SandboxListingGuide[] = [
  { listingId: 'lst-seaside', paymentProviderId: 'pp-seaside', currency: 'USD', note: 'active provider' },
  { listingId: 'lst-city', paymentProviderId: 'pp-city', currency: 'EUR', note: 'active provider' },
  { listingId: 'lst-mountain', paymentProviderId: 'pp-mountain', currency: 'GBP', note: 'active provider' },
  { listingId: 'lst-closed', paymentProviderId: 'pp-closed', currency: 'USD', note: 'provider INACTIVE' },
  { listingId: 'lst-suites', paymentProviderId: 'pp-suites', currency: 'USD', note: 'multi-unit (3 units): availability by allotment' },
  { listingId: 'lst-test', paymentProviderId: 'pp-test', currency: 'USD', note: 'isTest: true (platform:check --write books here)' },
];

const reservation = (
  reservationId: string,
  guestEmail: string,
  listingId: string,
  [balanceDue, currency]: [number, string],
  purpose: string,
): SandboxReservationGuide => ({ reservationId, guestEmail, listingId, balanceDue, currency, purpose });

export const SANDBOX_RESERVATIONS: readonly SandboxReservationGuide[] = [
  reservation('res-checkout-usd', 'olivia@example.com', 'lst-seaside', [858, 'USD'], 'unpaid, for checkout'),
  reservation('res-checkout-eur', 'noah@example.com', 'lst-city', [440, 'EUR'], 'unpaid, for checkout'),
  reservation('res-checkout-gbp', 'emma@example.com', 'lst-mountain', [816, 'GBP'], 'unpaid, for checkout'),
  reservation('res-unpaid', 'una@example.com', 'lst-seaside', [594, 'USD'], 'nothing attached (diagnosis: not attached)'),
  reservation('res-paid', 'paula@example.com', 'lst-city', [0, 'EUR'], 'paid: one SUCCEEDED payment'),
  reservation(
    'res-mismatch',
    'max@example.com',
    'lst-seaside',
    [594, 'USD'],
    'card attached under pp-city, no payment (provider mismatch)',
  ),
  reservation('res-failed', 'fay@example.com', 'lst-mountain', [564, 'GBP'], 'FAILED payment, insufficient funds (processor error)'),
  reservation('res-closed', 'liam@example.com', 'lst-closed', [368.5, 'USD'], 'listing whose provider is inactive'),
];

/** A block of plain text lines describing a running sandbox (no secrets beyond the sandbox's own). */
export function describeSandbox(urls: SandboxUrls): string {
  const pad = (text: string, width: number) => text.padEnd(width);
  return [
    'Guesty upstream sandbox (simulated: no real account, no real money)',
    `  Open API:           ${urls.apiUrl}/v1`,
    `  Token issuer:       ${urls.authUrl}/oauth2/token`,
    `  Tokenization host:  ${urls.payUrl}/api/tokenize/v2`,
    `  Client id / secret: ${SANDBOX_CLIENT_ID} / ${SANDBOX_CLIENT_SECRET}`,
    '  Listings:',
    ...SANDBOX_LISTINGS.map(
      (listing) => `    ${pad(listing.listingId, 14)}${pad(listing.paymentProviderId, 13)}${listing.currency}  ${listing.note}`,
    ),
    `  Booking: test coupon ${SANDBOX_COUPON.code} (${SANDBOX_COUPON.percentOff} % off the accommodation); rate plans rp-flexible and rp-non-refundable (10 % off)`,
    ...Object.entries(BOOKING_TERMS).map(
      ([listingId, terms]) =>
        `    ${pad(listingId, 14)}min ${terms.minNights} nights, ${terms.taxType} ${terms.taxRate * 100} %` +
        `${terms.blockedOffsets.length > 0 ? `, blocked on days +${terms.blockedOffsets.join(', +')} from start` : ''}${terms.closedToArrival.includes(0) ? ', no Sunday arrivals' : ''}`,
    ),
    '  Reservations (guest email, balance due):',
    ...SANDBOX_RESERVATIONS.map((r) => {
      const balance = pad(`${r.balanceDue} ${r.currency}`, 12);
      return `    ${pad(r.reservationId, 18)}${pad(r.guestEmail, 20)}${balance}${r.purpose}`;
    }),
    '  Test cards (any future expiry as MM / YYYY, any 3-digit CVC, 4 for American Express):',
    ...SANDBOX_TEST_CARDS.map((card) => `    ${card.number}  ${card.description}`),
    '',
  ].join('\n');
}
