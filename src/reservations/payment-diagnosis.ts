/** What payment-status and the admin diagnostics answer (docs/product-spec.md §3.2). */
export type PaymentState =
  'paid' | 'scheduled' | 'requires_authentication' | 'failed' | 'payment_method_attached' | 'balance_due' | 'missing';
export type DiagnosisCode = 'ok' | 'provider_mismatch' | 'processor_error' | 'not_attached' | 'authentication_required';
/** Why a charge failed, in a word the site may branch on (never the processor's own words). */
export type FailureCategory = 'insufficient_funds' | 'card_declined' | 'authentication_failed' | 'processing_error';

/** A payment as the answer shows it: never the upstream's attempts, payloads or guest ids. */
export interface SafePayment {
  id: string;
  status: string;
  amount: number;
  currency: string;
  /** When the platform charges it (shouldBePaidAt). */
  dueAt?: string;
  /** When it was paid (its succeeded attempt). */
  paidAt?: string;
  createdAt?: string;
  last4?: string;
}

export interface PaymentDiagnosis {
  state: PaymentState;
  currency?: string;
  /** What the reservation shows paid (money.totalPaid). */
  amountPaid: number;
  /** What remains to be paid in all (money.balanceDue). */
  amountDue: number;
  /** The next installment not yet paid. */
  nextPayment?: { amount: number; dueAt: string };
  /** Only for requires_authentication: where the guest authenticates the charge. */
  nextAction?: { type: 'redirect'; redirectUrl: string };
  diagnosis: { code: DiagnosisCode; message: string; category?: FailureCategory };
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
