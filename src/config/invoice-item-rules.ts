/*
 * Invoice-item rules of the upstream's public reference (open-api-docs, "Add invoice item to a
 * reservation"; collected in docs/upstream.md): `title`, `amount`, `normalType` required;
 * `normalType` from this set (the accommodation fare `AF` is not allowed); `secondIdentifier`
 * required when `normalType` is `AFE` and refused otherwise.
 */
export const INVOICE_ITEM_NORMAL_TYPES = [
  'CF', 'CFE', 'PCM', 'LT', 'CT', 'VAT', 'GST', 'TT', 'TAX', 'ST', 'COT', 'OCT', 'TOT', 'HSHAT', 'HST', 'MAT', 'AFE',
] as const;

export type InvoiceItemNormalType = (typeof INVOICE_ITEM_NORMAL_TYPES)[number];

export const NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER: InvoiceItemNormalType = 'AFE';

export function isInvoiceItemNormalType(value: unknown): value is InvoiceItemNormalType {
  return typeof value === 'string' && (INVOICE_ITEM_NORMAL_TYPES as readonly string[]).includes(value);
}

/** The problem with an item's normalType / secondIdentifier pair, or null when it follows the rules. */
export function secondIdentifierProblem(normalType: string, secondIdentifier: string | undefined): string | null {
  const given = secondIdentifier !== undefined && secondIdentifier !== '';
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
