import { Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { secondIdentifierProblem } from '../config/invoice-item-rules';
import { GuestyClient, Priority } from '../upstream/guesty-client';
import { InvoiceItemRequest, UpstreamInvoiceItem } from '../upstream/guesty.types';
import { UpstreamError } from '../upstream/upstream-error';
import { ReservationLease, ReservationLeases } from '../journal/reservation-leases';
import { Reconciliation, WriteIntent } from '../journal/write-intent';
import { WriteJournal } from '../journal/write-journal';
import { refusedBeforeEffect } from '../journal/refused-before-effect';
import { RedisKeys } from '../redis/redis-keys';
import { AddedInvoiceItem, addedItem, isLike, toAdded } from './added-invoice-item';

function refusal(error: UpstreamError): DomainError {
  if (error.upstreamStatus === 400) {
    const why = error.upstreamMessage ? `: ${error.upstreamMessage}` : '.';
    return new DomainError('validation_failed', `The booking platform refused the invoice item${why}`, { cause: error });
  }
  if (error.upstreamStatus === 404) return new DomainError('reservation_not_found', 'No reservation has this id.', { cause: error });
  return error;
}

/** The journal's id for one line of one request (an Idempotency-Key and the line's place in it). */
export function invoiceItemIntentId(scope: string, index: number): string {
  return RedisKeys.digest(`invoice-item:${scope}:${index}`);
}

/**
 * Adds invoice items to a reservation, each through the write journal under the reservation's lease
 * (docs/product-spec.md §6): journaled before it is sent, reconciled by re-reading the reservation when the answer
 * is lost, never sent twice for one line of one request.
 */
@Injectable()
export class InvoiceItems implements OnModuleInit {
  constructor(
    private readonly guesty: GuestyClient,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly leases: ReservationLeases,
    private readonly journal: WriteJournal,
  ) {}

  onModuleInit(): void {
    this.journal.register<AddedInvoiceItem>('invoice-item', {
      reconcile: (intent) => this.findItem(intent as WriteIntent<InvoiceItemRequest, AddedInvoiceItem>),
      // The request that wrote it answers the item when it is retried; nothing else holds it.
      settled: () => Promise.resolve(),
    });
  }

  /** One item for an operator; `scope` names the request (its Idempotency-Key). */
  async add(reservationId: string, item: InvoiceItemRequest, priority: Priority, scope: string): Promise<AddedInvoiceItem> {
    this.assertSendable([item]);
    const [added] = await this.leases.withLease(reservationId, (lease) => this.addEach(lease, [item], priority, scope));
    return added;
  }

  /**
   * Adds `items` in order, one journaled write each, under the caller's lease on the reservation.
   * A line whose write already landed under `scope` is answered from the journal, not sent again.
   */
  async addEach(
    lease: ReservationLease,
    items: InvoiceItemRequest[],
    priority: Priority,
    scope: string,
    context: WriteIntent['context'] = {},
  ): Promise<AddedInvoiceItem[]> {
    this.assertSendable(items);
    // The reservation's items, read once when the first line must be sent, then kept up to date.
    let known: UpstreamInvoiceItem[] | undefined;
    const added: AddedInvoiceItem[] = [];
    for (const [index, item] of items.entries()) {
      const landed = await this.journal
        .perform<InvoiceItemRequest, AddedInvoiceItem>(lease, {
          kind: 'invoice-item',
          intentId: invoiceItemIntentId(scope, index),
          request: item,
          context,
          snapshot: async () => {
            known ??= await this.currentItems(lease.reservationId, priority);
            return idsOf(known);
          },
          // The current endpoint answers the updated folio: the item is the one like it that was not there before.
          send: async () => addedItem(await this.guesty.addInvoiceItem(lease.reservationId, item), item, idsOf(known ?? [])),
          refused: refusedBeforeEffect,
        })
        .catch((error: unknown) => {
          throw error instanceof UpstreamError ? refusal(error) : error;
        });
      known = known ? [...known, { ...item, ...landed }] : undefined;
      added.push(landed);
    }
    return added;
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

  private async currentItems(reservationId: string, priority: Priority): Promise<UpstreamInvoiceItem[]> {
    const reservation = await this.guesty.getReservation(reservationId, priority);
    if (!reservation) throw new DomainError('reservation_not_found', 'No reservation has this id.');
    return reservation.money?.invoiceItems ?? [];
  }

  /** Landed when the reservation holds an item like this one that was not there before the write. */
  private async findItem(intent: WriteIntent<InvoiceItemRequest, AddedInvoiceItem>): Promise<Reconciliation<AddedInvoiceItem>> {
    const items = await this.currentItems(intent.reservationId, 'checkout');
    const before = new Set(intent.snapshot);
    const landed = items.find((existing) => isLike(existing, intent.request) && (existing._id === undefined || !before.has(existing._id)));
    if (!landed) return { notLanded: 'no new invoice item like it on the reservation' };
    return { landed: { ...toAdded(intent.request), ...toAdded(landed) } };
  }
}

function idsOf(items: UpstreamInvoiceItem[]): string[] {
  return items.flatMap((existing) => (existing._id ? [existing._id] : []));
}
