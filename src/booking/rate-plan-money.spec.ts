import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { quoteOf } from '../upstream/platform-readings';
import { ratePlanMoney as ofPlan } from './rate-plan-money';

type PlatformQuote = Parameters<typeof quoteOf>[0];
type PlatformMoney = NonNullable<NonNullable<NonNullable<PlatformQuote['rates']>['ratePlans']>[number]['ratePlan']>['money'];

const published = JSON.parse(readFileSync(join(__dirname, '../../docs/upstream-reference/examples/booking-engine-quote.json'), 'utf8')) as {
  example: PlatformQuote;
};

/** A rate plan's money as the platform answers it, read as the product reads a quote. */
const ratePlanMoney = (money: PlatformMoney) =>
  ofPlan(quoteOf({ _id: 'q-1', rates: { ratePlans: [{ ratePlan: { money } }] } }).ratePlans[0].money);

describe('a rate plan’s money is the platform’s', () => {
  it('reads the published production quote as the platform charges it: 943.94, cleaning counted once', () => {
    const money = published.example.rates!.ratePlans![0].ratePlan!.money!;
    const { total, breakdown } = ratePlanMoney(money);
    expect(total).toBe(943.94);
    expect(breakdown).toEqual({ accommodation: 624, discount: 0, cleaning: 197, fees: 0, taxes: 122.94 });
  });

  it('adds up to the total from the breakdown, whatever lines the platform adds', () => {
    const money = {
      fareAccommodation: 500,
      fareAccommodationAdjusted: 450,
      fareCleaning: 60,
      totalFees: 85,
      subTotalPrice: 535,
      totalTaxes: 53.5,
      hostPayout: 588.5,
      invoiceItems: [
        { normalType: 'AF', amount: 450 },
        { normalType: 'CF', amount: 60 },
        { normalType: 'AFE', amount: 25, title: 'Pet fee' },
        { normalType: 'VAT', amount: 53.5 },
      ],
    };
    const { total, breakdown } = ratePlanMoney(money);
    expect(total).toBe(588.5);
    expect(breakdown).toEqual({ accommodation: 500, discount: 50, cleaning: 60, fees: 25, taxes: 53.5 });
    expect(breakdown.accommodation - breakdown.discount + breakdown.cleaning + breakdown.fees + breakdown.taxes).toBeCloseTo(total, 2);
  });

  it("charges the guest subTotalPrice + totalTaxes when hostPayout is the host's net after a channel commission", () => {
    // The platform's host payout is what the host keeps once the channel took its fee (docs/upstream.md
    // "Reservation money"): 10 % of the fares here, so the guest's total is not it.
    const money = { ...published.example.rates!.ratePlans![0].ratePlan!.money!, hostPayout: 861.84 };
    const { total, breakdown } = ratePlanMoney(money);
    expect(total).toBe(943.94);
    expect(breakdown).toEqual({ accommodation: 624, discount: 0, cleaning: 197, fees: 0, taxes: 122.94 });
  });

  it('takes subTotalPrice + totalTaxes where hostPayout is absent', () => {
    expect(ratePlanMoney({ fareAccommodation: 624, fareCleaning: 197, totalFees: 197, subTotalPrice: 821, totalTaxes: 122.94 }).total).toBe(
      943.94,
    );
  });

  it('without invoice items, counts the cleaning fee once: totalFees already holds it', () => {
    const { total, breakdown } = ratePlanMoney({
      fareAccommodation: 624,
      fareAccommodationAdjusted: 624,
      fareCleaning: 197,
      totalFees: 197,
      totalTaxes: 122.94,
    });
    expect(total).toBe(943.94);
    expect(breakdown).toEqual({ accommodation: 624, discount: 0, cleaning: 197, fees: 0, taxes: 122.94 });
  });
});
