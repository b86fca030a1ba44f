import { CheckoutSessionView } from './checkout-session';

/** What POST /checkout/sessions takes for a booking: a quote of ours, its rate plan and the guest. */
export interface BookingRequest {
  quoteId: string;
  ratePlanId?: string;
  guest: { firstName: string; lastName: string; email: string; phone?: string };
}

/**
 * A booking whose quote and rate plan were found: what is left runs under its Idempotency-Key, so a
 * refused booking records nothing (docs/product-spec.md §7).
 */
export interface AdmittedBooking {
  book(idempotencyKey: string): Promise<CheckoutSessionView>;
}

/**
 * Books a quote and opens the session on its reservation, for POST /checkout/sessions. Declared
 * here, beside the session it opens, so the checkout asks for it without importing the booking room
 * that provides it (BookingModule); an app without that room fails at start.
 */
export abstract class QuoteBookings {
  /**
   * Finds the quote and its rate plan (404, 400 when not) and checks the stay's length (422), before
   * any Idempotency-Key is claimed; the client's address bounds its holds when it books.
   */
  abstract admit(request: BookingRequest, clientIp: string): Promise<AdmittedBooking>;
}
