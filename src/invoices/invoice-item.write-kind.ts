import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Priority } from '../upstream/guesty-client';
import { InvoiceItemRequest, InvoiceLine } from '../upstream/platform-results';
import { forSession, Reconciliation, WriteIntent, WriteTarget, reservationOf } from '../journal/write-intent';
import { JournaledWrite } from '../journal/write-kind';
import { AddedInvoiceItem, addedItem, isLike, toAdded } from './added-invoice-item';
import { JournaledWriteKind } from '../journal/write-kinds';

/**
 * The ids of a reservation's invoice items, read once when the first line of a request must be sent
 * and kept up to date as its lines land: one per request, handed with each line.
 */
export class KnownFolio {
  ids?: string[];
}

export interface InvoiceItemPayload {
  item: InvoiceItemRequest;
  /** Whose budget the reads and the write spend. */
  priority: Priority;
  folio: KnownFolio;
  /** The session whose extras these are, if any. */
  sessionId?: string;
}

/**
 * An invoice item on a reservation: sent to the current (or deprecated) endpoint; found by re-reading
 * the reservation's items for one like it (title, type, amount) that was not there before the write.
 */
@JournaledWriteKind()
@Injectable()
export class InvoiceItemWrite extends JournaledWrite<InvoiceItemPayload, InvoiceItemRequest, AddedInvoiceItem> {
  readonly name = 'invoice-item';

  describe(_target: WriteTarget, { item, sessionId }: InvoiceItemPayload) {
    return { request: item, context: forSession(sessionId) };
  }

  override async snapshot(target: WriteTarget, { folio, priority }: InvoiceItemPayload): Promise<string[]> {
    folio.ids ??= idsOf(await this.currentItems(target, priority));
    return [...folio.ids];
  }

  async send(target: WriteTarget, { item, folio }: InvoiceItemPayload, snapshot: string[]): Promise<AddedInvoiceItem> {
    // The current endpoint answers the updated folio: the item is the one like it that was not there before.
    const added = addedItem(await this.guesty.addInvoiceItem(reservationOf(target), item), item, snapshot);
    if (added._id) folio.ids?.push(added._id);
    return added;
  }

  /** Landed when the reservation holds an item like this one that was not there before the write. */
  async find(intent: WriteIntent<InvoiceItemRequest, AddedInvoiceItem>): Promise<Reconciliation<AddedInvoiceItem>> {
    const items = await this.currentItems(intent.target, 'checkout');
    const before = new Set(intent.snapshot);
    const landed = items.find((existing) => isLike(existing, intent.request) && (existing.id === undefined || !before.has(existing.id)));
    if (!landed) return { notLanded: 'no new invoice item like it on the reservation' };
    return { landed: { ...toAdded(intent.request), ...toAdded(landed) } };
  }

  private async currentItems(target: WriteTarget, priority: Priority): Promise<InvoiceLine[]> {
    const found = await this.guesty.getReservation(reservationOf(target), priority, ['folio']);
    if (!found) throw new DomainError('reservation_not_found', 'No reservation has this id.');
    return found.money?.folio ?? [];
  }
}

function idsOf(items: InvoiceLine[]): string[] {
  return items.flatMap((existing) => (existing.id ? [existing.id] : []));
}
