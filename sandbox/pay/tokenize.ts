/** POST /api/tokenize/v2: card details in, a single-use token out (docs/upstream-seed.md §2.2, §2.3, §7). */
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { parseJsonObject } from '../http/body';
import { UpstreamRefusal } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import type { CardTokenRecord, ChargeOutcome } from '../state/records';
import { newId } from '../state/store';
import { cardBrand, testCardOutcome, type TestCardOutcome } from './test-cards';
import { validateTokenizeRequest } from './tokenize-rules';

/** Cards that tokenize fine and show their behaviour only when the platform charges them. */
const CHARGE_OUTCOMES: Partial<Record<TestCardOutcome, ChargeOutcome>> = {
  insufficient_funds: 'insufficient_funds',
  authentication_required: 'requires_authentication',
};

export function tokenizeCard(ctx: RequestContext): SandboxAnswer {
  const { runtime, now } = ctx;
  if (ctx.headers.authorization !== undefined) runtime.counters.tokenizeWithAuthorization += 1;
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const { input, problems } = validateTokenizeRequest(runtime.store, body, now);
  if (problems.length > 0) {
    throw new UpstreamRefusal(400, { message: 'Invalid tokenization request', code: 'VALIDATION_ERROR', details: problems });
  }
  const outcome = testCardOutcome(input.card.number);
  if (outcome === 'declined') {
    throw new UpstreamRefusal(400, {
      code: 'CARD_DECLINED',
      message: 'The card was declined',
      decline_code: 'generic_decline',
    });
  }
  if (outcome === 'account_unavailable') {
    throw new UpstreamRefusal(402, {
      code: 'ERR_BAD_REQUEST',
      message: 'Request contradicts clearing interface configuration',
      data: { errors: ['Request contradicts clearing interface configuration', 'Bad Bin or Host Disconnect'] },
    });
  }
  const threeDsRequired = outcome === 'three_ds';
  const token: CardTokenRecord = {
    _id: newId('tok_'),
    paymentProviderId: input.paymentProviderId,
    listingId: input.listingId,
    card: {
      brand: cardBrand(input.card.number),
      last4: input.card.number.slice(-4),
      exp_month: input.card.exp_month,
      exp_year: input.card.exp_year,
    },
    charge: CHARGE_OUTCOMES[outcome] ?? 'succeeds',
    threeDS: {
      required: threeDsRequired,
      outcome: threeDsRequired ? 'pending' : 'not_required',
      amount: input.threeDS.amount,
      currency: input.threeDS.currency,
      successURL: input.threeDS.successURL,
      failureURL: input.threeDS.failureURL,
    },
    used: false,
    createdAt: now,
  };
  runtime.store.cardTokens.set(token._id, token);
  if (!threeDsRequired) return jsonAnswer(200, { _id: token._id });
  return jsonAnswer(200, { _id: token._id, threeDS: { authURL: `${runtime.payUrl}/3ds/${token._id}` } });
}
