/** The money.payments diagnostics of docs/product-spec.md §3, as both routes answer them. */

export type PaymentState = 'paid' | 'payment_method_attached' | 'missing';

export type DiagnosisCode = 'ok' | 'provider_mismatch' | 'processor_error' | 'not_attached';

/** A payment as the answer shows it: never the upstream's attempts, payloads or guest ids. */
export interface SafePayment {
  id: string;
  status: string;
  amount: number;
  currency: string;
  createdAt?: string;
  last4?: string;
  paymentProviderId?: string;
}

export interface PaymentDiagnosis {
  state: PaymentState;
  diagnosis: { code: DiagnosisCode; message: string };
  payments: SafePayment[];
}

/** What the caller already knows, e.g. from the checkout session that attached the card. */
export interface KnownPaymentFacts {
  /** The provider the attached card was tokenized under. */
  tokenizedUnder?: string;
  paymentMethodId?: string;
  listingId?: string;
  /** Of the attached card, to label its payments when the upstream does not. */
  last4?: string;
}
