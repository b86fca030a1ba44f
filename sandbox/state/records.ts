/** What the sandbox remembers, as close to the upstream's own objects as the product needs. */
import type { ThreeDsOutcome } from '../types';

export type ProviderStatus = 'ACTIVE' | 'INACTIVE';

export interface ProviderRecord {
  /** The provider document's id; NOT the id tokenization wants (that is paymentProviderId), as upstream. */
  _id: string;
  paymentProviderId: string;
  status: ProviderStatus;
  paymentProcessorKey: 'GUESTY_PAYMENTS';
  paymentProcessorName: 'GuestyPay';
  providerType: string;
  accountId: string;
  accountName: string;
  defaultCurrency: string;
  country: string;
  isDefault: boolean;
  fallbackToDefault: boolean;
  createdAt: string;
  apiKey: string;
}

export interface ListingRecord {
  _id: string;
  title: string;
  nickname: string;
  address: { full: string; city: string; country: string };
  pictures: { original: string; thumbnail: string; caption: string }[];
  prices: { currency: string; basePrice: number; cleaningFee: number };
  accommodates: number;
  bedrooms: number;
  bathrooms: number;
  propertyType: string;
  /** The platform's flag for a test property (changelog 2026-05-11). */
  isTest: boolean;
  /** Internal fields a public summary must never show. */
  owners: string[];
  publicDescription: { summary: string; notes: string };
  privateDescription: Record<string, string>;
  customFields: Record<string, string>;
  integrations: { platform: string; externalId: string }[];
}

export interface GuestRecord {
  _id: string;
  fullName: string;
  email: string;
}

export interface RealizationDate {
  date?: string;
  from?: string;
  to?: string;
}

export interface InvoiceItemRecord {
  _id: string;
  title: string;
  amount: number;
  normalType: string;
  secondIdentifier?: string;
  description?: string;
  realizationDates?: RealizationDate[];
  /** A guest's extra (the platform's changelog of 2026-04-27). */
  isUpsellFee?: boolean;
  stayIndex?: number;
  isTax: boolean;
}

export interface PaymentAttempt {
  status: 'SUCCEEDED' | 'FAILED' | 'PENDING_AUTH';
  error?: string;
  payload?: {
    code: string;
    decline_code: string;
    message: string;
    payment_method: { card: { brand: string; last4: string } };
  };
}

/**
 * PENDING: scheduled (shouldBePaidAt in the future) or being charged; PENDING_AUTH: the charge waits
 * for the guest's authentication (authenticationRequiredData.authenticationUrl), as the platform.
 */
export type PaymentStatus = 'PENDING' | 'PENDING_AUTH' | 'SUCCEEDED' | 'FAILED';

/** A refund of a payment, with its own id (the platform's recorded-refund update names one); PROCESSING until the provider settles it. */
export interface RefundRecord {
  _id: string;
  amount: number;
  status: 'SUCCEEDED' | 'PROCESSING' | 'PENDING' | 'FAILED';
  createdAt: number;
}

export interface PaymentRecord {
  _id: string;
  amount: number;
  currency: string;
  status: PaymentStatus;
  paymentMethodId: string;
  paymentProviderId: string;
  guestId: string;
  createdAt: number;
  /** The moment the payment shows in money.payments; before it, reads do not see it. */
  visibleAt: number;
  /** When the platform charges it (the listing's payment policy); seeded payments: their createdAt. */
  shouldBePaidAt?: number;
  /** When a due charge settles (a moment after it is due); set when it becomes due. */
  settlesAt?: number;
  /** What the processor does when this payment is charged: the card's behaviour (moved with the payment). */
  charge?: ChargeOutcome;
  paidAt?: number;
  authenticationUrl?: string;
  attempts: PaymentAttempt[];
  /** Refunds of it, in full or in part, settled or still processing. */
  refunds?: RefundRecord[];
  /** An authorization hold (a security deposit is one too): money held, never paid; its capture is a payment of its own. */
  isAuthorizationHold?: boolean;
  isSecurityDeposit?: boolean;
  /** Sandbox-only: the hold this payment captured (the platform publishes no link between them; never answered). */
  capturedHoldId?: string;
}

export interface ReservationRecord {
  _id: string;
  confirmationCode: string;
  status: string;
  listingId: string;
  guestId: string;
  checkIn: string;
  checkOut: string;
  currency: string;
  invoiceItems: InvoiceItemRecord[];
  payments: PaymentRecord[];
  /** From the quote it was made from: the discount its fare carries and the channel's commission then (0 when absent). */
  fareAccommodationDiscount?: number;
  commissionPercent?: number;
  /** From the quote it was made from: who stays and where it was booked. */
  guestsCount?: number;
  source?: string;
  createdAt?: number;
}

export interface PaymentMethodRecord {
  _id: string;
  guestId: string;
  paymentProviderId: string;
  reservationId?: string;
  /** The booking's code the method names (the published list item names it, not the reservation's id). */
  confirmationCode?: string;
  reuse: boolean;
  card: { brand: string; last4: string; exp_month: string; exp_year: string };
  createdAt: number;
  /** Sandbox-only: what the processor does when a payment is charged to this card (never answered). */
  charge?: ChargeOutcome;
}

/** What the processor does when a payment is charged to this card. */
export type ChargeOutcome = 'succeeds' | 'insufficient_funds' | 'requires_authentication';

/** One installment of a listing's auto-payment policy: a share of the balance, due at booking or N days before check-in. */
export interface PolicyInstallment {
  share: number;
  daysBeforeCheckIn?: number;
}

export interface PaymentPolicy {
  name: string;
  installments: PolicyInstallment[];
}

export interface CardTokenRecord {
  _id: string;
  paymentProviderId: string;
  listingId: string;
  card: { brand: string; last4: string; exp_month: string; exp_year: string };
  charge: ChargeOutcome;
  threeDS: {
    required: boolean;
    outcome: ThreeDsOutcome;
    amount: number;
    currency: string;
    successURL?: string;
    failureURL?: string;
  };
  used: boolean;
  createdAt: number;
}

export interface AccessTokenRecord {
  clientId: string;
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
}
