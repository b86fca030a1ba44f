/*
 * Invoice-item rules of the upstream's public reference (docs/upstream.md "Invoice items", the
 * schema in docs/upstream-reference/open-api-subset.json): `AF` is never sent; `secondIdentifier`
 * is required for `AFE` and refused otherwise on the current endpoint, and required on every item
 * on the deprecated one.
 */
/** The normal types that are taxes, in the reference's order among the others. */
const TAX_NORMAL_TYPES = ['LT', 'CT', 'VAT', 'GST', 'TT', 'TAX', 'ST', 'COT', 'OCT', 'TOT', 'HSHAT', 'HST', 'MAT'] as const;

export const INVOICE_ITEM_NORMAL_TYPES = ['CF', 'CFE', 'PCM', ...TAX_NORMAL_TYPES, 'AFE'] as const;

/** The current endpoint's `secondIdentifier` enum, as the reference lists it (a unit test compares the two). */
export const INVOICE_ITEM_SECOND_IDENTIFIERS = [
  'ADDITIONAL_BED',
  'AIR_CONDITIONING',
  'EARLY_CHECK_IN',
  'LATE_CHECK_IN',
  'BABY_BED',
  'CLEANING',
  'CLUB_CARD',
  'CONCIERGE',
  'EARLY_CHECKOUT',
  'LATE_CHECKOUT',
  'DEPOSIT',
  'ELECTRICITY',
  'FOOD',
  'HEATING',
  'INTERNET',
  'LAUNDRY',
  'LINENS',
  'TOWELS',
  'MANAGEMENT',
  'OIL',
  'PARKING',
  'PET',
  'POOL',
  'POOL_HEATING',
  'RESORT',
  'SERVICE',
  'TOILETRIES',
  'TOUR',
  'TRANSPORTATION',
  'CAR_RENTAL',
  'WATER',
  'WOOD',
  'TRANSFER',
  'HOUSEKEEPING',
  'INSURANCE',
  'COMMUNITY',
  'CREDIT_CARD_PROCESSING_FEE',
  'DAMAGE_WAIVER',
  'VIP_SERVICES',
  'PAYMENT_FEE',
  'ADDITIONAL_CHARGE',
  'MISCELLANEOUS',
  'SHIPPING',
  'VALET',
  'ACTIVITIES',
  'FLIGHTS',
  'GIFT_BASKET',
  'SPA',
  'CHEF',
  'MEET_AND_GREET',
  'DOCK_FEE',
  'UTILITY_FEE',
  'HOT_TUB',
  'BOOKING_FEE',
  'BREAKFAST',
  'BEVERAGE',
  'MEAL',
  'WELLNESS',
  'MINIBAR',
  'BUSINESS_CENTER',
  'WIFI',
  'GUEST_SERVICE',
  // Added by the platform's changelog of 2026-04-27.
  'DIRECT_SERVICE',
  'GUESTY_BASIC_TRAVEL_COVERAGE',
  'GUESTY_EXTENDED_TRAVEL_COVERAGE',
  'GUESTY_SHIELD',
  'PROPERTY_INSURANCE',
  'TOTAL_PAYOUT_BASED',
] as const;

/** The normal types that are taxes (the platform's `isTax` lines). */
export const INVOICE_ITEM_TAX_TYPES: readonly string[] = TAX_NORMAL_TYPES;

export function isTaxNormalType(normalType: string | undefined): boolean {
  return normalType !== undefined && INVOICE_ITEM_TAX_TYPES.includes(normalType);
}

export type InvoiceItemsEndpoint = 'current' | 'deprecated';

export type InvoiceItemNormalType = (typeof INVOICE_ITEM_NORMAL_TYPES)[number];

export const NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER: InvoiceItemNormalType = 'AFE';

export function isInvoiceItemNormalType(value: unknown): value is InvoiceItemNormalType {
  return typeof value === 'string' && (INVOICE_ITEM_NORMAL_TYPES as readonly string[]).includes(value);
}

/**
 * The problem with an item's normalType / secondIdentifier pair for the endpoint the service uses
 * (INVOICE_ITEMS_ENDPOINT), or null when it follows the rules.
 */
export function secondIdentifierProblem(
  normalType: string,
  secondIdentifier: string | undefined,
  endpoint: InvoiceItemsEndpoint = 'current',
): string | null {
  const given = secondIdentifier !== undefined && secondIdentifier !== '';
  if (given && !(INVOICE_ITEM_SECOND_IDENTIFIERS as readonly string[]).includes(secondIdentifier)) {
    return `secondIdentifier "${secondIdentifier}" is not one of the platform's values (${INVOICE_ITEM_SECOND_IDENTIFIERS.join(', ')})`;
  }
  if (endpoint === 'deprecated') {
    return given
      ? null
      : 'secondIdentifier is required on every item: this service uses the deprecated invoice-items endpoint (INVOICE_ITEMS_ENDPOINT=deprecated), which requires it';
  }
  if (normalType === NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER && !given) {
    return `secondIdentifier is required when normalType is ${NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER}`;
  }
  if (normalType !== NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER && given) {
    return `secondIdentifier is only allowed when normalType is ${NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER}`;
  }
  return null;
}

/** A real calendar day written YYYY-MM-DD (docs/upstream-seed.md §2.4): `2026-02-30` and `2026/01/01` are not. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [year, month, day] = value.split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
