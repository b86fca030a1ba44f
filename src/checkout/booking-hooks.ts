import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { CheckoutSessionView } from '../sessions/checkout-session';

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
 * Where the booking room plugs into the checkout without the checkout depending on it: it books
 * a quote for POST /checkout/sessions. Registered at start, like the journal's reconcilers.
 */
@Injectable()
export class BookingHooks {
  private booker?: (request: BookingRequest, clientIp: string) => Promise<AdmittedBooking>;

  register(hooks: { admit: BookingHooks['booker'] }): void {
    this.booker = hooks.admit;
  }

  /**
   * Finds the quote and its rate plan (404, 400 when not) and checks the stay's length (422), before
   * any Idempotency-Key is claimed; the client's address bounds its holds when it books.
   */
  admit(request: BookingRequest, clientIp: string): Promise<AdmittedBooking> {
    if (!this.booker) throw new DomainError('not_found', 'Booking is not available.');
    return this.booker(request, clientIp);
  }
}
