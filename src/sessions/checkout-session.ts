import { DomainError } from '../common/errors/domain-error';

/**
 * Statuses of docs/product-spec.md §3, and `processing`: an attach was sent and its outcome is being confirmed
 * (docs/product-spec.md §6.2); the site polls until `succeeded` or `failed`. `expired` sessions are gone from the
 * store (their TTL ended).
 */
export type CheckoutStatus = 'requires_payment_method' | 'requires_action' | 'processing' | 'succeeded' | 'failed';

export interface PaymentMethodSummary {
  id: string;
  last4: string;
  brand?: string;
}

/** A reservation this service made from a quote (docs/product-spec.md §3.1), as the session shows it. */
export type BookingStatus = 'reserved' | 'confirmed' | 'expired' | 'canceled';

export interface SessionBooking {
  reservationId: string;
  confirmationCode: string;
  status: BookingStatus;
  checkIn: string;
  checkOut: string;
  /** When the reservation stops holding its dates unless paid (ISO time); absent: no limit. */
  holdExpiresAt?: string;
  /**
   * Set when the booking ended on the platform after its card was on file (never confirmed): what
   * became of the booking, its card and money, in words for the guest.
   */
  notice?: string;
  /** The booking network's slot among its unpaid holds (BOOKING_HOLDS_PER_IP), by digest: given back once paid. Never shown. */
  holdNetwork?: string;
}

/** A booking whose hold ended before a card was on file: it no longer holds its dates. */
export function holdEnded(session: CheckoutSession, now: number): boolean {
  const { booking } = session;
  return (
    !!booking?.holdExpiresAt && booking.status === 'reserved' && session.status !== 'succeeded' && Date.parse(booking.holdExpiresAt) <= now
  );
}

/**
 * What the guest needs to do about the platform's charges once the card is on file (docs/product-spec.md §3.2),
 * as payment-status last saw them: nothing, authenticate a charge with the issuer (redirectUrl), or
 * give another card after a failed charge (the session then also shows lastError charge_failed).
 */
export interface SessionCharge {
  next: 'nothing' | 'authenticate' | 'another_card';
  redirectUrl?: string;
}

/** The card attempt waiting for 3-D Secure; kept server-side only. */
export interface PendingAttempt {
  id: string;
  tokenId: string;
  paymentProviderId: string;
  last4: string;
  brand?: string;
}

/** Where a record points at a session: by its ref, or by its raw id as records written before the ref do. */
export interface SessionPointer {
  sessionRef?: string;
  sessionId?: string;
}

/** What Redis holds for a session: never a card number, CVC or expiry. */
export interface CheckoutSession {
  id: string;
  /** Compare-and-set version: every change writes version + 1 over the version it read. */
  version: number;
  status: CheckoutStatus;
  reservationId: string;
  /** The reservation's confirmation code, which the platform's current attach links the card by. */
  confirmationCode?: string;
  listingId: string;
  guestId: string;
  paymentProviderId: string;
  amount: number;
  currency: string;
  createdAt: number;
  expiresAt: number;
  nextAction?: { type: 'redirect'; redirectUrl: string };
  paymentMethod?: PaymentMethodSummary;
  lastError?: { code: string; message: string };
  pendingAttempt?: PendingAttempt;
  /** The provider the attached card was tokenized under, for the payment diagnostics. */
  tokenizedUnder?: string;
  /** Set when the service made the reservation from a quote. */
  booking?: SessionBooking;
  /** Once succeeded: what the platform's charges ask of the guest (set from payment-status). */
  charge?: SessionCharge;
}

/** The session as the website sees it (docs/product-spec.md §3): no guest id, no pending attempt (a booking shows its code). */
export type CheckoutSessionView = Omit<
  CheckoutSession,
  'version' | 'guestId' | 'confirmationCode' | 'createdAt' | 'expiresAt' | 'pendingAttempt' | 'tokenizedUnder'
> & {
  expiresAt: string;
};

export function toView(session: CheckoutSession): CheckoutSessionView {
  return {
    id: session.id,
    status: session.status,
    reservationId: session.reservationId,
    listingId: session.listingId,
    paymentProviderId: session.paymentProviderId,
    amount: session.amount,
    currency: session.currency,
    expiresAt: new Date(session.expiresAt).toISOString(),
    ...(session.nextAction ? { nextAction: session.nextAction } : {}),
    ...(session.paymentMethod ? { paymentMethod: session.paymentMethod } : {}),
    ...(session.lastError ? { lastError: session.lastError } : {}),
    ...(session.booking ? { booking: bookingView(session.booking) } : {}),
    ...(session.charge && session.status === 'succeeded' ? { charge: session.charge } : {}),
  };
}

function bookingView({ holdNetwork: _network, ...booking }: SessionBooking): Omit<SessionBooking, 'holdNetwork'> {
  return booking;
}

/** 404 for a session id that names no session (unknown, or expired). */
export function sessionNotFound(): DomainError {
  return new DomainError('session_not_found', 'No checkout session has this id, or it has expired.');
}
