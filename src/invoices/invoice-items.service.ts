import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { GuestyClient, Priority } from '../guesty/guesty-client';
import { InvoiceItemRequest, UpstreamInvoiceItem } from '../guesty/guesty.types';
import { sleep } from '../guesty/retry-policy';
import { UpstreamError } from '../guesty/upstream-error';
import { AddedInvoiceItem, addedItem, isLike, toAdded } from './added-invoice-item';

/** Re-reads after an ambiguous write: three tries within 3 s (the upstream shows a write after a moment). */
const RECHECK_DELAYS_MS = [250, 750, 1500];

interface WriteOutcome {
  item: AddedInvoiceItem;
  /** The reservation's items as a re-read showed them, when one was needed. */
  reread?: UpstreamInvoiceItem[];
}

/** No answer, or a 5xx: the upstream may have carried the write out all the same. */
function isAmbiguous(error: UpstreamError): boolean {
  return error.maybeSent && (error.upstreamStatus === undefined || error.upstreamStatus >= 500);
}

function refusal(error: UpstreamError): DomainError {
  if (error.upstreamStatus === 400) {
    const why = error.upstreamMessage ? `: ${error.upstreamMessage}` : '.';
    return new DomainError('validation_failed', `The booking platform refused the invoice item${why}`, { cause: error });
  }
  if (error.upstreamStatus === 404) return new DomainError('reservation_not_found', 'No reservation has this id.', { cause: error });
  return error;
}

/**
 * Adds invoice items to a reservation through the upstream client. Writes are never retried
 * blindly: the reservation's items are read before, and a write that failed without a clear answer
 * is followed by re-reads that tell whether it landed (a second write would charge the guest twice).
 */
@Injectable()
export class InvoiceItems {
  private readonly logger = new Logger('InvoiceItems');

  constructor(
    private readonly guesty: GuestyClient,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async add(reservationId: string, item: InvoiceItemRequest, priority: Priority): Promise<AddedInvoiceItem> {
    const [added] = await this.addEach(reservationId, [item], priority);
    return added;
  }

  /**
   * Adds `items` in order, one write each, after one read of the reservation. `onAdded` runs as each
   * one lands, before the next is sent, so that a caller can remember how far it got.
   */
  async addEach(
    reservationId: string,
    items: InvoiceItemRequest[],
    priority: Priority,
    onAdded?: (item: AddedInvoiceItem, index: number) => Promise<void>,
  ): Promise<AddedInvoiceItem[]> {
    this.assertSendable(items);
    let known = await this.currentItems(reservationId, priority);
    const added: AddedInvoiceItem[] = [];
    for (const [index, item] of items.entries()) {
      const outcome = await this.write(reservationId, item, known.filter((existing) => isLike(existing, item)), priority);
      known = outcome.reread ?? [...known, outcome.item];
      added.push(outcome.item);
      await onAdded?.(outcome.item, index);
    }
    return added;
  }

  /** The deprecated endpoint takes no realizationDates: refuse, before anything is sent, rather than drop them. */
  assertSendable(items: InvoiceItemRequest[]): void {
    if (this.config.get('guesty', { infer: true }).invoiceItemsEndpoint !== 'deprecated') return;
    if (items.some((item) => item.realizationDates !== undefined)) {
      throw DomainError.validation([
        {
          field: 'realizationDates',
          message:
            'realizationDates cannot be sent: this service uses the deprecated invoice-items endpoint (INVOICE_ITEMS_ENDPOINT=deprecated), which does not take them; send the item without them',
        },
      ]);
    }
  }

  private async currentItems(reservationId: string, priority: Priority): Promise<UpstreamInvoiceItem[]> {
    const reservation = await this.guesty.getReservation(reservationId, priority);
    if (!reservation) throw new DomainError('reservation_not_found', 'No reservation has this id.');
    return reservation.money?.invoiceItems ?? [];
  }

  private async write(reservationId: string, item: InvoiceItemRequest, likeBefore: UpstreamInvoiceItem[], priority: Priority): Promise<WriteOutcome> {
    try {
      return { item: addedItem(await this.guesty.addInvoiceItem(reservationId, item), item) };
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (!isAmbiguous(error)) throw refusal(error);
      return this.reconcile(reservationId, item, likeBefore, priority, error);
    }
  }

  /** Landed when the reservation now holds more items like this one than before the write. */
  private async reconcile(
    reservationId: string,
    item: InvoiceItemRequest,
    likeBefore: UpstreamInvoiceItem[],
    priority: Priority,
    failure: UpstreamError,
  ): Promise<WriteOutcome> {
    let readOnce = false;
    for (const delay of RECHECK_DELAYS_MS) {
      await sleep(delay);
      const items = await this.guesty.getReservation(reservationId, priority).then(
        (reservation) => reservation?.money?.invoiceItems ?? null,
        () => null,
      );
      if (items === null) continue;
      readOnce = true;
      const like = items.filter((existing) => isLike(existing, item));
      if (like.length > likeBefore.length) {
        const seenBefore = new Set(likeBefore.map((existing) => existing._id));
        const landed = like.find((existing) => !seenBefore.has(existing._id)) ?? like[like.length - 1];
        this.logger.warn({ reservationId, operation: failure.operation, outcome: 'landed' }, 'an invoice-item write failed without an answer but landed');
        return { item: { ...toAdded(item), ...toAdded(landed) }, reread: items };
      }
    }
    this.logger.warn({ reservationId, operation: failure.operation, outcome: readOnce ? 'not_landed' : 'unknown' }, 'an invoice-item write failed without an answer');
    if (!readOnce) {
      throw new DomainError(
        'upstream_unavailable',
        'The booking platform did not answer, and whether the invoice item was added could not be checked. Look at the reservation before trying again.',
        { cause: failure },
      );
    }
    throw new DomainError(
      'upstream_unavailable',
      'The booking platform did not confirm the invoice item and it is not on the reservation: it was not added. It is safe to retry with the same Idempotency-Key.',
      { retryAfterSeconds: 1, cause: failure },
    );
  }
}
