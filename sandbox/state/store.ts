import { randomBytes, randomUUID } from 'node:crypto';
import type {
  AccessTokenRecord,
  CardTokenRecord,
  GuestRecord,
  ListingRecord,
  PaymentMethodRecord,
  PaymentPolicy,
  ProviderRecord,
  ReservationRecord,
} from './records';

/** Ids the upstream would make up: opaque, unguessable enough, readable prefix for debugging. */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

export function newRequestId(): string {
  return randomUUID();
}

/** One sandbox instance's upstream data; reset replaces the whole store. */
export class SandboxStore {
  readonly providers = new Map<string, ProviderRecord>();
  readonly listings = new Map<string, ListingRecord>();
  /** listingId → paymentProviderId currently assigned to the listing. */
  readonly listingProviders = new Map<string, string>();
  /** listingId → its auto-payment policy (absent: all at booking); not part of the listing's answer. */
  readonly paymentPolicies = new Map<string, PaymentPolicy>();
  readonly guests = new Map<string, GuestRecord>();
  readonly reservations = new Map<string, ReservationRecord>();
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  readonly cardTokens = new Map<string, CardTokenRecord>();
  readonly accessTokens = new Map<string, AccessTokenRecord>();
  /** clientId → mint times, for the tokens-per-24 h rule. */
  readonly mintLog = new Map<string, number[]>();

  providerByPaymentProviderId(paymentProviderId: string): ProviderRecord | undefined {
    for (const provider of this.providers.values()) {
      if (provider.paymentProviderId === paymentProviderId) return provider;
    }
    return undefined;
  }

  currentProviderOf(listingId: string): ProviderRecord | undefined {
    const paymentProviderId = this.listingProviders.get(listingId);
    return paymentProviderId === undefined ? undefined : this.providerByPaymentProviderId(paymentProviderId);
  }

  /** The guest with this email when `merge` (the default), else a new record. */
  guestByEmail(email: string, fullName: string, merge = true): GuestRecord {
    const wanted = email.trim().toLowerCase();
    for (const guest of merge ? this.guests.values() : []) {
      if (guest.email.toLowerCase() === wanted) return guest;
    }
    const guest: GuestRecord = { _id: newId('guest-'), fullName, email: email.trim() };
    this.guests.set(guest._id, guest);
    return guest;
  }
}
