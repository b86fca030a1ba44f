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
  /** Internal fields a public summary must never show. */
  owners: string[];
  publicDescription: { summary: string; notes: string };
  privateDescription: string;
  customFields: { fieldId: string; value: string }[];
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
  isTax: boolean;
}

export interface PaymentAttempt {
  status: 'SUCCEEDED' | 'FAILED';
  error?: string;
  payload?: {
    code: string;
    decline_code: string;
    message: string;
    payment_method: { card: { brand: string; last4: string } };
  };
}

export interface PaymentRecord {
  _id: string;
  amount: number;
  currency: string;
  status: 'SUCCEEDED' | 'FAILED';
  paymentMethodId: string;
  paymentProviderId: string;
  guestId: string;
  createdAt: number;
  /** The moment the payment shows in money.payments; before it, reads do not see it. */
  visibleAt: number;
  attempts: PaymentAttempt[];
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
}

export interface PaymentMethodRecord {
  _id: string;
  guestId: string;
  paymentProviderId: string;
  reservationId?: string;
  reuse: boolean;
  card: { brand: string; last4: string; exp_month: string; exp_year: string };
  createdAt: number;
}

/** What the processor does when a payment is charged to this card. */
export type ChargeOutcome = 'succeeds' | 'insufficient_funds';

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
