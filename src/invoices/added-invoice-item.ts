import { InvoiceItemRequest, InvoiceLine } from '../upstream/platform-results';
import { InvoiceItemAnswer } from '../upstream/invoice-item-answer';

/** An invoice item as the upstream recorded it (docs/product-spec.md §4): what the operator and extras routes answer. */
export interface AddedInvoiceItem {
  /** The upstream's id of the item, when its answer carried one. */
  _id?: string;
  title: string;
  amount: number;
  normalType: string;
  secondIdentifier?: string;
  description?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The safe fields of an item (a reservation read shows `secondIdentifier: null` when there is none). */
export function toAdded(item: InvoiceLine | InvoiceItemRequest): AddedInvoiceItem {
  const id = 'id' in item ? text(item.id) : undefined;
  const secondIdentifier = text(item.secondIdentifier);
  const description = text(item.description);
  return {
    ...(id ? { _id: id } : {}),
    title: item.title,
    amount: item.amount,
    normalType: item.normalType,
    ...(secondIdentifier ? { secondIdentifier } : {}),
    ...(description ? { description } : {}),
  };
}

/**
 * The item the upstream added. The current endpoint answers the updated folio (docs/upstream.md
 * "Invoice items"), so the new entry is the last one like the item sent whose id was not in
 * `before`, the ids read before the write. An item answered alone is taken as is; with neither, the
 * item as sent, without an id.
 */
export function addedItem(answer: InvoiceItemAnswer, sent: InvoiceItemRequest, before: readonly string[] = []): AddedInvoiceItem {
  if ('folio' in answer) {
    const known = new Set(before);
    const added = answer.folio.filter((item) => isLike(item, sent) && typeof item.id === 'string' && !known.has(item.id)).pop();
    return toAdded(added ? { ...sent, ...added } : sent);
  }
  return toAdded('item' in answer ? answer.item : sent);
}

/**
 * Whether a reservation's item is one like `item`. Only fields the reference lists in
 * `money.invoiceItems` and the upstream keeps as sent: description is not among them, and a write
 * wrongly judged "not there" would be added twice.
 */
export function isLike(existing: InvoiceLine, item: InvoiceItemRequest): boolean {
  return existing.title === item.title && existing.normalType === item.normalType && cents(existing.amount) === cents(item.amount);
}

function cents(amount: unknown): number {
  return typeof amount === 'number' ? Math.round(amount * 100) : NaN;
}
