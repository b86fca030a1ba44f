import { PaymentMethodOnFile, PlatformPayment } from '../upstream/platform-results';

/** Payments the platform will still charge on a card: scheduled, being charged or waiting for the guest. */
const WAITING = new Set(['PENDING', 'PENDING_AUTH']);

function timeOf(method: PaymentMethodOnFile): number {
  const time = Date.parse(method.createdAt ?? '');
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

/** The card the reservation is charged on now: the newest active method on it (the list's order on a tie). */
export function currentCard(methods: PaymentMethodOnFile[], reservationId: string): PaymentMethodOnFile | undefined {
  return methods
    .filter((method) => method.reservationId === reservationId && method.status !== 'INACTIVE')
    .reduce<PaymentMethodOnFile | undefined>(
      (best, method) => (best === undefined || timeOf(method) >= timeOf(best) ? method : best),
      undefined,
    );
}

/**
 * The one way a second card reaches a reservation (docs/product-spec.md §6.5): read fresh, the card
 * charged now shows a failed charge and nothing still waiting on it. Answers that card's id, or
 * undefined when no replacement is allowed (no failure, or the failed card was already replaced).
 */
export function replaceableCard(methods: PaymentMethodOnFile[], payments: PlatformPayment[], reservationId: string): string | undefined {
  const card = currentCard(methods, reservationId);
  if (!card) return undefined;
  const own = payments.filter((payment) => payment.methodId === card.id);
  const failed = own.some((payment) => payment.status === 'FAILED');
  const waiting = own.some((payment) => WAITING.has(payment.status));
  return failed && !waiting ? card.id : undefined;
}
