import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { secondIdentifierProblem } from '../config/invoice-item-rules';
import { Priority } from '../upstream/guesty-client';
import { InvoiceItemRequest } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';
import { AddedInvoiceItem } from './added-invoice-item';
import { InvoiceItemWrite, KnownFolio } from './invoice-item.write-kind';
import { onReservation } from '../journal/write-intent';
import { WriteJournal } from '../journal/write-journal';

function refusal(error: UpstreamError): DomainError {
  if (error.upstreamStatus === 400) {
    const why = error.upstreamMessage ? `: ${error.upstreamMessage}` : '.';
    return new DomainError('validation_failed', `The booking platform refused the invoice item${why}`, { cause: error });
  }
  if (error.upstreamStatus === 404) return new DomainError('reservation_not_found', 'No reservation has this id.', { cause: error });
  return error;
}

/**
 * Adds invoice items to a reservation, each through the write journal under the reservation's lease
 * (docs/product-spec.md §6): journaled before it is sent, reconciled by re-reading the reservation when the answer
 * is lost, never sent twice for one line of one request.
 */
@Injectable()
export class InvoiceItemsService {
  constructor(
    private readonly config: ConfigService<AppConfig, true>,
    private readonly journal: WriteJournal,
    private readonly invoiceItems: InvoiceItemWrite,
  ) {}

  /** One item for an operator; `scope` names the request (its Idempotency-Key). */
  async add(reservationId: string, item: InvoiceItemRequest, priority: Priority, scope: string): Promise<AddedInvoiceItem> {
    const [added] = await this.addAll(reservationId, [item], priority, scope);
    return added;
  }

  /**
   * Adds `items` in order, one journaled write each, holding the reservation (waiting `waitMs` for
   * another holder). A line whose write already landed under `scope` is answered from the journal,
   * not sent again.
   */
  async addAll(
    reservationId: string,
    items: InvoiceItemRequest[],
    priority: Priority,
    scope: string,
    options: { sessionId?: string; waitMs?: number } = {},
  ): Promise<AddedInvoiceItem[]> {
    this.assertSendable(items);
    const { sessionId, waitMs } = options;
    return this.journal.holding(
      onReservation(reservationId),
      async (held) => {
        // The reservation's items, read once when the first line must be sent, then kept up to date.
        const folio = new KnownFolio();
        const added: AddedInvoiceItem[] = [];
        for (const [index, item] of items.entries()) {
          const landed = await held
            .send(this.invoiceItems, `${scope}:${index}`, { item, priority, folio, ...(sessionId ? { sessionId } : {}) })
            .catch((error: unknown) => {
              throw error instanceof UpstreamError ? refusal(error) : error;
            });
          added.push(landed);
        }
        return added;
      },
      waitMs !== undefined ? { waitMs } : {},
    );
  }

  /**
   * What the endpoint in use refuses, before anything is sent or kept: secondIdentifier required for
   * AFE and refused otherwise (current), or required on every item (deprecated); the deprecated
   * endpoint takes no realizationDates either (refused rather than dropped).
   */
  assertSendable(items: InvoiceItemRequest[]): void {
    const endpoint = this.config.get('guesty', { infer: true }).invoiceItemsEndpoint;
    const problem = items
      .map((item) => secondIdentifierProblem(item.normalType, item.secondIdentifier, endpoint))
      .find((found) => found !== null);
    if (problem) throw DomainError.validation([{ field: 'secondIdentifier', message: problem }]);
    if (endpoint !== 'deprecated') return;
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
}
