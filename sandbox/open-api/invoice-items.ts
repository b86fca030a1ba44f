/** Both invoice-item endpoints (docs/upstream-seed.md §4.3 current, §4.4 deprecated). */
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { parseJsonObject } from '../http/body';
import { invalidParameters, notFound } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import { reservationView } from '../state/money';
import type { InvoiceItemRecord, ReservationRecord } from '../state/records';
import { newId } from '../state/store';
import { isTaxType, validateInvoiceItem } from './invoice-item-rules';
import { RESERVATION_NOT_FOUND } from './reservations';

function addInvoiceItem(ctx: RequestContext, endpoint: 'current' | 'deprecated'): SandboxAnswer {
  const reservation = ctx.runtime.store.reservations.get(ctx.params.id);
  if (!reservation) {
    // The deprecated endpoint's 404 is the reference's bare string; the current one publishes none.
    if (endpoint === 'deprecated') return jsonAnswer(404, RESERVATION_NOT_FOUND);
    throw notFound(`Reservation ${ctx.params.id} not found`);
  }
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const { item, problems } = validateInvoiceItem(body, endpoint);
  if (problems.length > 0) throw invalidParameters(problems);
  const record: InvoiceItemRecord = { _id: newId('ii_'), ...item, isTax: isTaxType(item.normalType) };
  reservation.invoiceItems.push(record);
  ctx.runtime.reservationChanged(reservation, { folio: true });
  if (endpoint === 'current') {
    if (ctx.runtime.readings.invoiceItemAnswer === 'folio') return jsonAnswer(200, folioView(reservation));
    const { isTax: _isTax, ...created } = record;
    return jsonAnswer(200, created);
  }
  // The deprecated endpoint's 200 is the whole reservation, its money.invoiceItems holding the new item (the reference).
  return jsonAnswer(200, reservationView(ctx.runtime.store, reservation, ctx.now));
}

/** The current endpoint answers the updated folio with the new item (the reference), not the item alone. */
function folioView(reservation: ReservationRecord): Record<string, unknown> {
  return { reservationId: reservation._id, currency: reservation.currency, invoiceItems: reservation.invoiceItems };
}

export function addInvoiceItemCurrent(ctx: RequestContext): SandboxAnswer {
  return addInvoiceItem(ctx, 'current');
}

export function addInvoiceItemDeprecated(ctx: RequestContext): SandboxAnswer {
  return addInvoiceItem(ctx, 'deprecated');
}
