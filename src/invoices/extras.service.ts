import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DomainError, FieldError } from '../common/errors/domain-error';
import { ProductEventBus } from '../common/events/product-event-bus';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { AppConfig, ExtraDefinition } from '../config/app-config';
// How long a press waits for another step on the reservation (a confirmation, a reconciliation) before 409.
import { LONGEST_LEASE_WAIT_MS } from '../config/timing-rules';
import { InvoiceItemRequest } from '../upstream/platform-results';
import { AddedInvoiceItem } from './added-invoice-item';
import { InvoiceItemsService } from './invoice-items.service';
import { RedisKeys } from '../redis/redis-keys';
import { CheckoutSession } from '../sessions/checkout-session';
import { SessionState } from '../sessions/session-state';
import { attachedBy, CardsOnFile } from '../sessions/cards-on-file';
import { AddExtrasDto } from './dto/extras.dto';
import { AddedExtraView, AddedExtrasView } from './dto/extras.view';
import { ExtrasCatalogueView } from './dto/extras-catalogue.view';

interface ExtraLine {
  definition: ExtraDefinition;
  quantity: number;
}

/**
 * One invoice item per line, marked as an upsell fee, for the line's quantity: amount = catalogue amount × quantity, and the
 * description says "× N" when N > 1, so the guest's folio shows one line per extra chosen.
 */
function invoiceItemFor({ definition, quantity }: ExtraLine): InvoiceItemRequest {
  const description = quantity > 1 ? `${definition.description ?? definition.title} × ${quantity}` : definition.description;
  return {
    normalType: definition.normalType,
    title: definition.title,
    amount: Math.round(definition.amount * quantity * 100) / 100,
    ...(definition.secondIdentifier ? { secondIdentifier: definition.secondIdentifier } : {}),
    ...(description ? { description } : {}),
    // A guest's own choice at checkout: the platform's upsell fee (changelog of 2026-04-27).
    isUpsellFee: true,
  };
}

function view({ definition, quantity }: ExtraLine, item: AddedInvoiceItem): AddedExtraView {
  return {
    code: definition.code,
    quantity,
    title: item.title,
    amount: item.amount,
    normalType: item.normalType,
    ...(item._id ? { invoiceItemId: item._id } : {}),
  };
}

/** Checkout extras (docs/product-spec.md §3): catalogue items the guest adds to a reservation whose payment method is attached. */
@Injectable()
export class ExtrasService {
  private readonly catalogue: Map<string, ExtraDefinition>;

  constructor(
    config: ConfigService<AppConfig, true>,
    private readonly sessions: SessionState,
    private readonly invoiceItems: InvoiceItemsService,
    private readonly idempotency: IdempotencyService,
    private readonly events: ProductEventBus,
    private readonly cards: CardsOnFile,
  ) {
    this.catalogue = new Map(config.get('checkout', { infer: true }).extras.map((extra) => [extra.code, extra]));
  }

  /** The public catalogue: codes, titles, unit amounts and descriptions (nothing of the invoice-item mapping). */
  catalogueView(): ExtrasCatalogueView {
    return {
      items: [...this.catalogue.values()].map(({ code, title, amount, description }) => ({
        code,
        title,
        amount,
        ...(description ? { description } : {}),
      })),
    };
  }

  /** Refusals (codes, session state) come before the Idempotency-Key is claimed: they leave nothing behind. */
  async add(sessionId: string, body: AddExtrasDto, idempotencyKey: string | undefined): Promise<AddedExtrasView> {
    const lines = this.resolve(body);
    const session = await this.sessions.require(sessionId);
    if (session.status !== 'succeeded') await this.cardOnFile(session);
    const answer = await this.idempotency.run(`extras:${sessionId}`, idempotencyKey, body, async () => ({
      status: 201,
      // run() has checked the key by now.
      body: await this.addLines(sessionId, session.reservationId, lines, idempotencyKey!),
    }));
    return answer.body;
  }

  /**
   * The card on file decides, not the session record: the card's outcome is recorded before the
   * session follows it (a replica can freeze in between), and the key may already have told the
   * guest `succeeded`. So two presses of one key never get different answers
   * (docs/product-spec.md §6).
   */
  private async cardOnFile(session: CheckoutSession): Promise<void> {
    const card = await this.cards.onFile(session.reservationId);
    if (attachedBy(card, session.id)) return;
    if (session.status === 'processing') {
      throw DomainError.outcomePending(
        'The card is still being confirmed with the booking platform; extras can be added once it is on file.',
      );
    }
    throw new DomainError('invalid_state', 'Extras can be added once the payment method is attached (session status "succeeded").');
  }

  /**
   * One journaled write per line, named by the key and the line's place: a retry after a failure
   * or an unclear answer finds the lines that landed in the journal and sends only the rest.
   */
  private async addLines(sessionId: string, reservationId: string, lines: ExtraLine[], idempotencyKey: string): Promise<AddedExtrasView> {
    const scope = `extras:${sessionId}:${RedisKeys.digest(idempotencyKey)}`;
    // A press right after the card meets the booking's confirmation on the reservation: it waits for it.
    const added = await this.invoiceItems.addAll(reservationId, lines.map(invoiceItemFor), 'checkout', scope, {
      sessionId,
      waitMs: LONGEST_LEASE_WAIT_MS,
    });
    await this.events.publish('balance.changed', { reservationId });
    return { items: added.map((item, index) => view(lines[index], item)) };
  }

  private resolve(body: AddExtrasDto): ExtraLine[] {
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    const lines = body.items.flatMap((line, index) => {
      const definition = this.catalogue.get(line.code);
      if (!definition) {
        errors.push({ field: `items.${index}.code`, message: `code "${line.code}" is not an extra offered here` });
        return [];
      }
      if (seen.has(line.code)) errors.push({ field: `items.${index}.code`, message: `code "${line.code}" is listed twice; use quantity` });
      seen.add(line.code);
      return [{ definition, quantity: line.quantity ?? 1 }];
    });
    if (errors.length > 0) throw DomainError.validation(errors);
    return lines;
  }
}
