/** The upstream's invoice-item rules (docs/upstream.md "Invoice items"), for both endpoints (secondIdentifier differs). */
import type { RealizationDate } from '../state/records';
import type { FieldProblem } from '../http/errors';
import { INVOICE_ITEM_SECOND_IDENTIFIERS, isTaxNormalType } from '../../src/config/invoice-item-rules';

/** The accommodation fare `AF` is the upstream's own and may not be added. */
export const INVOICE_NORMAL_TYPES: readonly string[] = [
  'CF',
  'CFE',
  'PCM',
  'LT',
  'CT',
  'VAT',
  'GST',
  'TT',
  'TAX',
  'ST',
  'COT',
  'OCT',
  'TOT',
  'HSHAT',
  'HST',
  'MAT',
  'AFE',
];

/**
 * The reference's `secondIdentifier` enum (the type of an additional fee), as the platform checks it:
 * the product's list, which a unit test keeps equal to the published reference.
 */
export const SECOND_IDENTIFIERS: readonly string[] = INVOICE_ITEM_SECOND_IDENTIFIERS;

export function isTaxType(normalType: string): boolean {
  return isTaxNormalType(normalType);
}

export interface InvoiceItemInput {
  title: string;
  amount: number;
  normalType: string;
  secondIdentifier?: string;
  description?: string;
  realizationDates?: RealizationDate[];
  isUpsellFee?: boolean;
  stayIndex?: number;
}

const CURRENT_FIELDS = new Set([
  'title',
  'amount',
  'normalType',
  'secondIdentifier',
  'description',
  'realizationDates',
  'stayIndex',
  'isUpsellFee',
]);
const DEPRECATED_FIELDS = new Set(['title', 'amount', 'normalType', 'secondIdentifier', 'description']);

/** A real calendar day in YYYY-MM-DD form (2026-02-30 is not one). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [year, month, day] = value.split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function checkRealizationDates(value: unknown, problems: FieldProblem[]): RealizationDate[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push({ field: 'realizationDates', message: 'must be a non-empty array' });
    return undefined;
  }
  const dates: RealizationDate[] = [];
  value.forEach((entry: unknown, index) => {
    const field = `realizationDates[${index}]`;
    const element = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : undefined;
    // The reference requires each entry's date; from/to (changelog of 2026-04-27) come beside it, in order.
    const range = element && (element.from !== undefined || element.to !== undefined);
    if (element && isCalendarDate(element.date) && !range) {
      dates.push({ date: element.date });
    } else if (
      element &&
      isCalendarDate(element.date) &&
      isCalendarDate(element.from) &&
      isCalendarDate(element.to) &&
      element.from <= element.to
    ) {
      dates.push({ date: element.date, from: element.from, to: element.to });
    } else {
      problems.push({ field, message: 'must be {date} or {date, from, to} with real calendar dates (YYYY-MM-DD), from not after to' });
    }
  });
  return dates;
}

export function validateInvoiceItem(
  body: Record<string, unknown>,
  endpoint: 'current' | 'deprecated',
): { item: InvoiceItemInput; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const allowed = endpoint === 'current' ? CURRENT_FIELDS : DEPRECATED_FIELDS;
  for (const key of Object.keys(body)) {
    if (!allowed.has(key)) problems.push({ field: key, message: `"${key}" is not allowed` });
  }
  const { title, amount, normalType, secondIdentifier, description } = body;
  if (typeof title !== 'string' || title.trim() === '') problems.push({ field: 'title', message: 'is required' });
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    problems.push({ field: 'amount', message: 'is required and must be a number' });
  }
  if (typeof normalType !== 'string' || !INVOICE_NORMAL_TYPES.includes(normalType)) {
    problems.push({ field: 'normalType', message: `must be one of ${INVOICE_NORMAL_TYPES.join(', ')}` });
  }
  const hasSecondIdentifier = typeof secondIdentifier === 'string' && secondIdentifier.trim() !== '';
  if (secondIdentifier !== undefined && !(typeof secondIdentifier === 'string' && SECOND_IDENTIFIERS.includes(secondIdentifier))) {
    problems.push({ field: 'secondIdentifier', message: `must be one of ${SECOND_IDENTIFIERS.join(', ')}` });
  } else if (endpoint === 'deprecated') {
    // The deprecated endpoint requires it on every item, whatever the normalType.
    if (!hasSecondIdentifier) problems.push({ field: 'secondIdentifier', message: 'is required' });
  } else if (normalType === 'AFE') {
    if (!hasSecondIdentifier) problems.push({ field: 'secondIdentifier', message: 'is required when normalType is AFE' });
  } else if (secondIdentifier !== undefined) {
    problems.push({ field: 'secondIdentifier', message: 'is only allowed when normalType is AFE' });
  }
  if (description !== undefined && typeof description !== 'string') {
    problems.push({ field: 'description', message: 'must be a string' });
  }
  const realizationDates =
    endpoint === 'current' && body.realizationDates !== undefined ? checkRealizationDates(body.realizationDates, problems) : undefined;
  const { isUpsellFee, stayIndex } = body;
  if (isUpsellFee !== undefined && typeof isUpsellFee !== 'boolean') problems.push({ field: 'isUpsellFee', message: 'must be a boolean' });
  if (stayIndex !== undefined && !(typeof stayIndex === 'number' && Number.isInteger(stayIndex) && stayIndex >= 0)) {
    problems.push({ field: 'stayIndex', message: 'must be a whole number, 0 or more' });
  }
  return {
    item: {
      title: String(title),
      amount: Number(amount),
      normalType: String(normalType),
      ...(typeof secondIdentifier === 'string' ? { secondIdentifier } : {}),
      ...(typeof description === 'string' ? { description } : {}),
      ...(realizationDates ? { realizationDates } : {}),
      ...(typeof isUpsellFee === 'boolean' ? { isUpsellFee } : {}),
      ...(typeof stayIndex === 'number' ? { stayIndex } : {}),
    },
    problems,
  };
}
