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

/** The card attempt waiting for 3-D Secure; kept server-side only. */
export interface PendingAttempt {
  id: string;
  tokenId: string;
  paymentProviderId: string;
  last4: string;
  brand?: string;
}

/** What Redis holds for a session: never a card number, CVC or expiry. */
export interface CheckoutSession {
  id: string;
  /** Compare-and-set version: every change writes version + 1 over the version it read. */
  version: number;
  status: CheckoutStatus;
  reservationId: string;
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
}

/** The session as the website sees it (docs/product-spec.md §3): no guest id, no pending attempt. */
export type CheckoutSessionView = Omit<CheckoutSession, 'version' | 'guestId' | 'createdAt' | 'expiresAt' | 'pendingAttempt' | 'tokenizedUnder'> & {
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
  };
}
