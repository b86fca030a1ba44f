import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { BatchAnswer, BatchStep, KeyValueStore, SlotAnswer, SlotRequest, slotAnswerOf, slotStep, steps } from '../redis/key-value-store';
import { RedisKeys, TargetWrites } from '../redis/redis-keys';
import { StoreOutbox } from '../redis/store-outbox';
import { SessionMove } from './session-moves';

/**
 * The card this service attached to a reservation, and by which session: by its ref (a digest of
 * its id, docs/product-spec.md §7); a record written before the ref names it by its id.
 */
export interface CardOnFile {
  paymentMethodId: string;
  sessionRef?: string;
  sessionId?: string;
  /** The card's last four digits and brand, as its session shows them (records written before they were kept lack them). */
  last4?: string;
  brand?: string;
}

/** Whether this session attached the card on file. */
export function attachedBy(card: CardOnFile | null, sessionId: string): boolean {
  if (!card) return false;
  return card.sessionRef ? card.sessionRef === RedisKeys.sessionRef(sessionId) : card.sessionId === sessionId;
}

/** The session's move once its card is attached: a replacement becomes its card, and the failure is mended. */
export function attachedMove(tokenizedUnder: string, card: { paymentMethodId: string; last4: string; brand?: string }): SessionMove {
  return {
    move: 'attached',
    method: { id: card.paymentMethodId, last4: card.last4, ...(card.brand ? { brand: card.brand } : {}) },
    tokenizedUnder,
  };
}

/**
 * The move that makes a session show the card on file it attached itself, from the record alone
 * (its own move was lost with its replica or its event); null for another session's card, or a
 * record that does not name its digits.
 */
export function ownCardMove(card: CardOnFile | null, session: { id: string; paymentProviderId: string }): SessionMove | null {
  if (!card || card.last4 === undefined || !attachedBy(card, session.id)) return null;
  return attachedMove(session.paymentProviderId, { paymentMethodId: card.paymentMethodId, last4: card.last4, brand: card.brand });
}

/** Longer than any stay is paid for: the platform stays the record after it (docs/product-spec.md §6.8). */
const CARD_ON_FILE_TTL_MS = 400 * 24 * 3_600_000;

export function alreadyPaid(): DomainError {
  return new DomainError('already_paid', 'A payment method is already on file for this reservation; no other card can be added here.');
}

/**
 * The card on file as it is kept beside a reservation's writes (`{reservation}:card`), so the
 * journal reads it in the attach's own step (a TargetRecord of the journal).
 */
export const CARD_ON_FILE: { key(writes: TargetWrites): string; parse(raw: string): CardOnFile } = {
  key: (writes: TargetWrites) => writes.card,
  parse: (raw: string) => JSON.parse(raw) as CardOnFile,
};

/**
 * One card per reservation (docs/product-spec.md §6.5): what this service attached, shared by every
 * replica, so a second session is refused before it spends a card attempt or a tokenization. The
 * platform's list, read before every attach, covers a lost record. Written beside the attach's
 * outcome, or when the platform shows a card this record lacks.
 */
@Injectable()
export class CardsOnFile {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly outbox: StoreOutbox,
  ) {}

  async onFile(reservationId: string): Promise<CardOnFile | null> {
    const raw = await this.store.get(this.keys.reservationWrites(reservationId).card).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    return raw ? CARD_ON_FILE.parse(raw) : null;
  }

  /**
   * The card on file, read in the step that takes `count` (a reservation limit under its tag) when
   * there is none: a reservation with a card never spends its limits. Only a count granted with no
   * card runs `whenCounted` (steps of another slot, answered in `after`; null: not run) and
   * `alongside` (of the reservation's slot, unanswered).
   */
  async onFileOrCounted(
    reservationId: string,
    count: SlotRequest,
    whenCounted: BatchStep[] = [],
    alongside: BatchStep[] = [],
  ): Promise<{ card: CardOnFile | null; counted: SlotAnswer; after: BatchAnswer[] }> {
    const cardKey = this.keys.reservationWrites(reservationId).card;
    const otherSlot = whenCounted.map((step) => ({ ...step, otherSlot: true as const }));
    const [present, counted, ...rest] = await this.store
      .batch([steps.read(cardKey), slotStep(count, [cardKey]), ...alongside, ...otherSlot])
      .catch((cause: unknown) => {
        throw DomainError.storeUnavailable(cause);
      });
    return {
      card: typeof present === 'string' ? CARD_ON_FILE.parse(present) : null,
      counted: slotAnswerOf(counted),
      after: rest.slice(alongside.length),
    };
  }

  /** Kept and retried while Redis is down: the card is on the reservation whatever Redis says. */
  async record(reservationId: string, card: CardOnFile): Promise<void> {
    const [step] = this.recordStep(reservationId, card);
    await this.outbox.write(step.key, 'card on file', () => this.store.batch([step]).then(() => undefined));
  }

  /** The same record as a step of the journal's outcome write (one round trip with it). */
  recordStep(reservationId: string, card: CardOnFile): [BatchStep & { op: 'set' }] {
    return [steps.write(this.keys.reservationWrites(reservationId).card, JSON.stringify(card), CARD_ON_FILE_TTL_MS)];
  }
}
