import { UpstreamInvoiceItem } from './guesty.types';
import { InvoiceLine } from './platform-results';
import { invoiceLineOf } from './platform-readings';

/**
 * What the platform answered to an added invoice item, typed: the updated folio (the current
 * endpoint; the reference: "The updated folio with the new invoice item"), the item itself, or
 * neither. Never the raw body.
 */
export type InvoiceItemAnswer = { folio: InvoiceLine[] } | { item: InvoiceLine } | { neither: true };

function asItem(value: unknown): InvoiceLine | null {
  const item = value as Partial<UpstreamInvoiceItem> | null;
  return typeof item?.title === 'string' && typeof item.amount === 'number' && typeof item.normalType === 'string'
    ? invoiceLineOf(item as UpstreamInvoiceItem)
    : null;
}

/** Reads the answer's body: a folio's items at its top level or under `money` (as a reservation shows them), else the item. */
export function readInvoiceItemAnswer(body: unknown): InvoiceItemAnswer {
  const folio = body as { invoiceItems?: unknown; money?: { invoiceItems?: unknown } } | null;
  const items = folio?.invoiceItems ?? folio?.money?.invoiceItems;
  if (Array.isArray(items)) return { folio: items.flatMap((entry) => asItem(entry) ?? []) };
  const item = asItem(body);
  return item ? { item } : { neither: true };
}
