import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { BatchStep, KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { StoreOutbox } from '../redis/store-outbox';
import { SessionPointer } from './checkout-sessions.store';

/** The card this service attached to a reservation, and by which session (its ref, docs/product-spec.md §7). */
export interface CardOnFile extends SessionPointer {
  paymentMethodId: string;
}

/** Whether this session attached the card on file (a record written before the ref names it by its id). */
export function attachedBy(card: CardOnFile | null, sessionId: string): boolean {
  if (!card) return false;
  return card.sessionRef ? card.sessionRef === RedisKeys.sessionRef(sessionId) : card.sessionId === sessionId;
}

/** Longer than any stay is paid for: the platform stays the record after it (docs/product-spec.md §6.8). */
const CARD_ON_FILE_TTL_MS = 400 * 24 * 3_600_000;

export function alreadyPaid(): DomainError {
  return new DomainError('already_paid', 'A payment method is already on file for this reservation; no other card can be added here.');
}

/**
 * One card per reservation (docs/product-spec.md §6.5): what this service attached, shared by every replica, so a
 * second session on the reservation is refused before it spends a card attempt or a tokenization.
 * The platform's own list, read before every attach, guards the case where this record was lost.
 */
@Injectable()
export class ReservationCards {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly outbox: StoreOutbox,
  ) {}

  async onFile(reservationId: string): Promise<CardOnFile | null> {
    const raw = await this.store.get(this.keys.reservationWrites(reservationId).card).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    return raw ? (JSON.parse(raw) as CardOnFile) : null;
  }

  /** Kept and retried while Redis is down: the card is on the reservation whatever Redis says. */
  async record(reservationId: string, card: CardOnFile): Promise<void> {
    const [step] = this.recordStep(reservationId, card);
    await this.outbox.write(step.key, 'card on file', () => this.store.batch([step]).then(() => undefined));
  }

  /** The same record as a step of the journal's outcome write (one round trip with it). */
  recordStep(reservationId: string, card: CardOnFile): [BatchStep & { op: 'set' }] {
    return [{ op: 'set', key: this.keys.reservationWrites(reservationId).card, value: JSON.stringify(card), ttlMs: CARD_ON_FILE_TTL_MS }];
  }

  /** The key of the card on file, for reads folded into the journal's (see WriteJournal.peek). */
  key(reservationId: string): string {
    return this.keys.reservationWrites(reservationId).card;
  }

  parse(raw: string | null): CardOnFile | null {
    return raw ? (JSON.parse(raw) as CardOnFile) : null;
  }
}
