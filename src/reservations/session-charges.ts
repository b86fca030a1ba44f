import { Injectable, Logger } from '@nestjs/common';
import { SessionCharge } from '../sessions/checkout-session';
import { SessionState } from '../sessions/session-state';
import { CardsOnFile } from '../sessions/cards-on-file';
import { PaymentDiagnosis } from './payment-diagnosis';

/** What the guest needs next, from what payment-status found; undefined when it says nothing new. */
function chargeOf(answer: PaymentDiagnosis): SessionCharge | undefined {
  switch (answer.state) {
    case 'failed':
      return { next: 'another_card' };
    case 'requires_authentication':
      return { next: 'authenticate', ...(answer.nextAction ? { redirectUrl: answer.nextAction.redirectUrl } : {}) };
    case 'paid':
    case 'scheduled':
    case 'balance_due':
      return { next: 'nothing' };
    default:
      return undefined;
  }
}

/**
 * The session that put the card on file follows its charges (docs/product-spec.md §3.2, §6.5): a
 * failed charge shows as `lastError.code: charge_failed` on the still-succeeded session, which then
 * takes a replacement. Only the replacement's attach clears it, so a payment-status read racing the
 * replacement cannot make the session forget it waits for one.
 */
@Injectable()
export class SessionCharges {
  private readonly logger = new Logger('SessionCharges');

  constructor(
    private readonly cards: CardsOnFile,
    private readonly sessions: SessionState,
  ) {}

  /** Whether a session of this service follows the reservation's charges: its card is on file. */
  async followed(reservationId: string): Promise<boolean> {
    return (await this.cards.onFile(reservationId)) !== null;
  }

  async follow(reservationId: string, answer: PaymentDiagnosis): Promise<void> {
    const charge = chargeOf(answer);
    if (!charge) return;
    try {
      const card = await this.cards.onFile(reservationId);
      const session = card && (await this.sessions.pointedAt(card));
      if (!session) return;
      await this.sessions.move(session.id, { move: 'chargeSeen', charge, message: answer.diagnosis.message }, session);
    } catch (error) {
      // The answer stands; the session learns it on the next read.
      this.logger.warn({ err: error, reservationId }, 'could not note the state of the charges on the checkout session');
    }
  }
}
