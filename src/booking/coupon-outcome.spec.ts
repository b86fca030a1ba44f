import { couponOutcome } from './coupon-outcome';

describe("a quote's coupon", () => {
  it('is applied when the platform lists it, whatever the case, or lists entries that name no code', () => {
    expect(couponOutcome('SANDBOX10', [{ code: 'sandbox10', discountPercent: 10 }])).toEqual({ couponApplied: true });
    expect(couponOutcome('SUMMER', [{ _id: 'cp_1', discount: 20 }])).toEqual({ couponApplied: true });
  });

  it('is said not to apply, in words a site may show, when the platform lists none or another one', () => {
    const refused = {
      couponApplied: false,
      couponMessage: 'The coupon TYPO10 is not valid for this stay; the prices shown are without it.',
    };
    expect(couponOutcome('TYPO10', [])).toEqual(refused);
    expect(couponOutcome('TYPO10', undefined)).toEqual(refused);
    expect(couponOutcome('TYPO10', [{ code: 'SANDBOX10' }])).toEqual(refused);
  });
});
