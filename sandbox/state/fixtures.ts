/**
 * The seeded world every sandbox starts with (and returns to on reset). fixture-guide.ts and
 * docs/sandbox.md describe it; test/sandbox/fixtures.e2e-spec.ts keeps the guide honest.
 */
import { insufficientFundsAttempt } from './charges';
import { outstandingBalance } from './money';
import type { ListingRecord, PaymentAttempt, PaymentRecord, ProviderRecord, ReservationRecord } from './records';
import { addReservation, type ReservationSpec } from './reservation-factory';
import { PAYMENT_POLICIES } from './charging';
import { SandboxStore } from './store';

const DAY_MS = 24 * 3600 * 1000;

interface ProviderSeed {
  key: string;
  accountName: string;
  currency: string;
  country: string;
  status: ProviderRecord['status'];
}

const PROVIDERS: ProviderSeed[] = [
  { key: 'seaside', accountName: 'Seaside Stays LLC', currency: 'USD', country: 'US', status: 'ACTIVE' },
  { key: 'city', accountName: 'City Lofts SARL', currency: 'EUR', country: 'FR', status: 'ACTIVE' },
  { key: 'mountain', accountName: 'Highland Chalets Ltd', currency: 'GBP', country: 'GB', status: 'ACTIVE' },
  { key: 'closed', accountName: 'Old Mill Cottages Inc', currency: 'USD', country: 'US', status: 'INACTIVE' },
  { key: 'suites', accountName: 'Harbour Suites Co', currency: 'USD', country: 'US', status: 'ACTIVE' },
  { key: 'test', accountName: 'Test Properties Co', currency: 'USD', country: 'US', status: 'ACTIVE' },
];

interface ListingSeed {
  key: string;
  title: string;
  nickname: string;
  city: string;
  country: string;
  street: string;
  currency: string;
  basePrice: number;
  cleaningFee: number;
  rooms: [accommodates: number, bedrooms: number, bathrooms: number];
  propertyType: string;
  /** A test property (the platform's `isTest`, changelog 2026-05-11): the only kind `platform:check --write` books on. */
  isTest?: boolean;
}

const LISTINGS: ListingSeed[] = [
  {
    key: 'seaside',
    title: 'Seaside Villa with Ocean View',
    nickname: 'Seaside Villa',
    city: 'Miami Beach',
    country: 'US',
    street: '1200 Ocean Drive',
    currency: 'USD',
    basePrice: 240,
    cleaningFee: 60,
    rooms: [6, 3, 2],
    propertyType: 'Villa',
  },
  {
    key: 'city',
    title: 'Bright Loft in the Marais',
    nickname: 'City Loft',
    city: 'Paris',
    country: 'FR',
    street: '14 Rue des Archives',
    currency: 'EUR',
    basePrice: 180,
    cleaningFee: 40,
    rooms: [3, 1, 1],
    propertyType: 'Apartment',
  },
  {
    key: 'mountain',
    title: 'Highland Chalet by the Forest',
    nickname: 'Mountain Chalet',
    city: 'Aviemore',
    country: 'GB',
    street: '3 Glenmore Road',
    currency: 'GBP',
    basePrice: 210,
    cleaningFee: 50,
    rooms: [8, 4, 3],
    propertyType: 'Chalet',
  },
  {
    key: 'closed',
    title: 'Old Mill Cottage',
    nickname: 'Closed Cottage',
    city: 'Asheville',
    country: 'US',
    street: '77 Mill Lane',
    currency: 'USD',
    basePrice: 150,
    cleaningFee: 35,
    rooms: [4, 2, 1],
    propertyType: 'Cottage',
  },
  {
    // A multi-unit listing (three like suites): a day is bookable while a unit is left (its allotment).
    key: 'suites',
    title: 'Harbour Suites',
    nickname: 'Harbour Suites',
    city: 'Boston',
    country: 'US',
    street: '5 Long Wharf',
    currency: 'USD',
    basePrice: 200,
    cleaningFee: 30,
    rooms: [2, 1, 1],
    propertyType: 'Serviced apartment',
  },
  {
    key: 'test',
    title: 'Test Property',
    nickname: 'Test Property',
    city: 'Austin',
    country: 'US',
    street: '1 Test Street',
    currency: 'USD',
    basePrice: 100,
    cleaningFee: 20,
    rooms: [2, 1, 1],
    propertyType: 'Apartment',
    isTest: true,
  },
];

function providerRecord(seed: ProviderSeed, now: number): ProviderRecord {
  return {
    _id: `ppdoc-${seed.key}`,
    paymentProviderId: `pp-${seed.key}`,
    status: seed.status,
    paymentProcessorKey: 'GUESTY_PAYMENTS',
    paymentProcessorName: 'GuestyPay',
    providerType: 'amaryllis',
    accountId: `acct-${seed.key}`,
    accountName: seed.accountName,
    defaultCurrency: seed.currency,
    country: seed.country,
    isDefault: seed.key === 'seaside',
    fallbackToDefault: false,
    createdAt: new Date(now - 365 * DAY_MS).toISOString(),
    apiKey: `sk_sandbox_${seed.key}_9f3c2a7d41e84b6c`,
  };
}

function listingRecord(seed: ListingSeed): ListingRecord {
  const picture = (n: number) => ({
    original: `https://images.example.com/${seed.key}/${n}.jpg`,
    thumbnail: `https://images.example.com/${seed.key}/${n}-thumb.jpg`,
    caption: `${seed.nickname} — photo ${n}`,
  });
  const [accommodates, bedrooms, bathrooms] = seed.rooms;
  return {
    _id: `lst-${seed.key}`,
    title: seed.title,
    nickname: seed.nickname,
    address: { full: `${seed.street}, ${seed.city}, ${seed.country}`, city: seed.city, country: seed.country },
    pictures: [picture(1), picture(2)],
    prices: { currency: seed.currency, basePrice: seed.basePrice, cleaningFee: seed.cleaningFee },
    accommodates,
    bedrooms,
    bathrooms,
    propertyType: seed.propertyType,
    isTest: seed.isTest ?? false,
    owners: [`owner-${seed.key}`],
    publicDescription: { summary: `${seed.nickname} in ${seed.city}.`, notes: 'Key box code 4711 (internal).' },
    // Objects, as the reference types both (its listing schema names no fields inside them).
    privateDescription: { notes: 'Owner prefers cleaning crew B. Alarm code 0000.' },
    customFields: { 'cf-lockbox': '4711' },
    integrations: [{ platform: 'airbnb2', externalId: `airbnb-${seed.key}` }],
  };
}

interface StaySeed {
  currency: string;
  nights: number;
  nightly: number;
  cleaning: number;
  taxType: 'TAX' | 'VAT';
  taxRate: number;
}

function fareItems(stay: StaySeed): ReservationSpec['items'] {
  const fare = stay.nights * stay.nightly;
  return [
    { title: 'Accommodation fare', amount: fare, normalType: 'AF' },
    { title: 'Cleaning fee', amount: stay.cleaning, normalType: 'CF' },
    {
      title: stay.taxType === 'VAT' ? 'VAT' : 'Occupancy tax',
      amount: (fare + stay.cleaning) * stay.taxRate,
      normalType: stay.taxType,
    },
  ];
}

const EXAMPLE_CARD = { brand: 'visa', last4: '4242', exp_month: '12', exp_year: '2030' };
const FAILING_CARD = { brand: 'visa', last4: '0341', exp_month: '12', exp_year: '2030' };

interface SeededCard {
  store: SandboxStore;
  reservation: ReservationRecord;
  paymentProviderId: string;
  card: typeof EXAMPLE_CARD;
  at: number;
}

function attachMethod({ store, reservation, paymentProviderId, card, at }: SeededCard): string {
  const id = `pm_${reservation.guestId.replace('guest-', '')}`;
  store.paymentMethods.set(id, {
    _id: id,
    guestId: reservation.guestId,
    paymentProviderId,
    reservationId: reservation._id,
    confirmationCode: reservation.confirmationCode,
    reuse: false,
    card,
    createdAt: at,
  });
  return id;
}

function addCharge(charge: SeededCard, status: PaymentRecord['status'], attempt: PaymentAttempt): void {
  const { reservation } = charge;
  const paymentMethodId = attachMethod(charge);
  reservation.payments.push({
    _id: paymentMethodId.replace('pm_', 'pay_'),
    amount: outstandingBalance(reservation),
    currency: reservation.currency,
    status,
    paymentMethodId,
    paymentProviderId: charge.paymentProviderId,
    guestId: reservation.guestId,
    createdAt: charge.at,
    visibleAt: charge.at,
    attempts: [attempt],
    ...(status === 'SUCCEEDED' ? { paidAt: charge.at } : {}),
  });
}

/** Each listing charges as a property's auto-payment policy says (docs/sandbox.md lists them). */
function seedPaymentPolicies(store: SandboxStore): void {
  store.paymentPolicies.set('lst-seaside', PAYMENT_POLICIES.atBooking);
  store.paymentPolicies.set('lst-city', PAYMENT_POLICIES.split);
  store.paymentPolicies.set('lst-mountain', PAYMENT_POLICIES.beforeCheckIn);
  store.paymentPolicies.set('lst-closed', PAYMENT_POLICIES.atBooking);
  store.paymentPolicies.set('lst-suites', PAYMENT_POLICIES.atBooking);
  store.paymentPolicies.set('lst-test', PAYMENT_POLICIES.atBooking);
}

export function seedFixtures(now: number): SandboxStore {
  const store = new SandboxStore();
  for (const seed of PROVIDERS) {
    const provider = providerRecord(seed, now);
    store.providers.set(provider._id, provider);
  }
  for (const seed of LISTINGS) {
    store.listings.set(`lst-${seed.key}`, listingRecord(seed));
    store.listingProviders.set(`lst-${seed.key}`, `pp-${seed.key}`);
  }
  seedPaymentPolicies(store);
  const add = (id: string, listingId: string, guestName: string, fullName: string, stay: StaySeed) =>
    addReservation(
      store,
      {
        id,
        confirmationCode: `SBX-${id.slice(4).toUpperCase()}`,
        listingId,
        guest: { id: `guest-${guestName}`, email: `${guestName}@example.com`, fullName },
        currency: stay.currency,
        nights: stay.nights,
        items: fareItems(stay),
      },
      now,
    );
  const seaside: StaySeed = { currency: 'USD', nights: 2, nightly: 240, cleaning: 60, taxType: 'TAX', taxRate: 0.1 };
  const city: StaySeed = { currency: 'EUR', nights: 2, nightly: 180, cleaning: 40, taxType: 'VAT', taxRate: 0.1 };
  const mountain: StaySeed = { currency: 'GBP', nights: 2, nightly: 210, cleaning: 50, taxType: 'VAT', taxRate: 0.2 };
  const closed: StaySeed = { currency: 'USD', nights: 2, nightly: 150, cleaning: 35, taxType: 'TAX', taxRate: 0.1 };

  add('res-unpaid', 'lst-seaside', 'una', 'Una Wells', seaside);
  add('res-checkout-usd', 'lst-seaside', 'olivia', 'Olivia Stone', { ...seaside, nights: 3 });
  add('res-checkout-eur', 'lst-city', 'noah', 'Noah Laurent', city);
  add('res-checkout-gbp', 'lst-mountain', 'emma', 'Emma Reid', { ...mountain, nights: 3 });
  add('res-closed', 'lst-closed', 'liam', 'Liam Brooks', closed);

  const past = now - 2 * DAY_MS;
  const paid = add('res-paid', 'lst-city', 'paula', 'Paula Weiss', { ...city, nights: 3 });
  const paying = { store, reservation: paid, paymentProviderId: 'pp-city', card: EXAMPLE_CARD, at: past };
  addCharge(paying, 'SUCCEEDED', { status: 'SUCCEEDED' });

  const mismatch = add('res-mismatch', 'lst-seaside', 'max', 'Max Turner', seaside);
  attachMethod({ store, reservation: mismatch, paymentProviderId: 'pp-city', card: EXAMPLE_CARD, at: past });

  const failed = add('res-failed', 'lst-mountain', 'fay', 'Fay Morgan', mountain);
  const failing = { store, reservation: failed, paymentProviderId: 'pp-mountain', card: FAILING_CARD, at: past };
  addCharge(failing, 'FAILED', insufficientFundsAttempt(FAILING_CARD));
  return store;
}
