import { isTaxNormalType } from '../config/invoice-item-rules';
import { RatePlanMoney } from '../upstream/platform-results';
import { RatePlanView } from './quote';

const round = (value: number) => Math.round(value * 100) / 100;
const amount = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? round(value) : undefined);

type Breakdown = RatePlanView['breakdown'];

/**
 * What the guest pays for a rate plan, in the platform's figures: its subtotal and taxes
 * (`subTotalPrice + totalTaxes`). Never `hostPayout`, which is what the host keeps once a channel took
 * its commission (docs/upstream.md "Reservation money"), and never a sum of our own: the fees already count the cleaning fee
 * (docs/upstream-reference/examples/booking-engine-quote.json).
 */
export function ratePlanTotal(money: RatePlanMoney): number | undefined {
  const subTotal = amount(money.subTotal);
  return subTotal === undefined ? undefined : round(subTotal + (amount(money.taxes) ?? 0));
}

/**
 * A rate plan's total broken down by its lines' `normalType`, so that accommodation − discount +
 * cleaning + fees + taxes is the total to the cent: accommodation is `AF` before the discount,
 * cleaning `CF`, taxes every tax line, fees the rest. Without lines, the rate plan's own fields
 * stand in (fees then include cleaning).
 */
export function ratePlanMoney(money: RatePlanMoney): { total: number; breakdown: Breakdown } {
  const fare = amount(money.accommodationFare);
  // The published quote's field; without it, no discount is read (nothing published names another).
  const adjusted = amount(money.discountedAccommodationFare) ?? fare;
  const discount = fare !== undefined && adjusted !== undefined ? Math.max(0, round(fare - adjusted)) : 0;
  const items = (money.lines ?? []).filter((item) => amount(item.amount) !== undefined);
  const sum = (keep: (item: (typeof items)[number]) => boolean) =>
    round(items.filter(keep).reduce((total, item) => total + (amount(item.amount) ?? 0), 0));
  const isTax = (item: (typeof items)[number]) => item.type === 'TAX' || isTaxNormalType(item.normalType);
  const parts =
    items.length > 0
      ? {
          accommodation: round(sum((item) => item.normalType === 'AF') + discount),
          cleaning: sum((item) => item.normalType === 'CF'),
          taxes: sum(isTax),
        }
      : {
          accommodation: fare ?? round((adjusted ?? 0) + discount),
          cleaning: amount(money.cleaningFee) ?? 0,
          taxes: amount(money.taxes) ?? 0,
        };
  const total =
    ratePlanTotal(money) ?? round(parts.accommodation - discount + Math.max(amount(money.fees) ?? 0, parts.cleaning) + parts.taxes);
  const fees = round(total - (parts.accommodation - discount + parts.cleaning + parts.taxes));
  return { total, breakdown: { ...parts, fees, discount } };
}
