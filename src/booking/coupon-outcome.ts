/** Whether the platform took the coupon a quote asked for, and the words the site may show when not. */
export interface CouponOutcome {
  couponApplied: boolean;
  couponMessage?: string;
}

/**
 * From the quote's `coupons` (the reference declares it on every quote, an array of objects whose
 * fields it does not list): taken when an entry names the code asked for, or when entries name no
 * code at all; not taken when the list is empty or names only other codes. The prices are the
 * platform's either way.
 */
export function couponOutcome(asked: string, coupons: unknown): CouponOutcome {
  const entries = Array.isArray(coupons)
    ? coupons.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    : [];
  const codes = entries.map((entry) => entry.code ?? entry.couponCode).filter((code): code is string => typeof code === 'string');
  const applied = entries.length > 0 && (codes.length === 0 || codes.some((code) => code.toUpperCase() === asked.toUpperCase()));
  if (applied) return { couponApplied: true };
  return { couponApplied: false, couponMessage: `The coupon ${asked} is not valid for this stay; the prices shown are without it.` };
}
