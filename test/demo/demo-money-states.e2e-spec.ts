import { CARDS } from '../utils/checkout-client';
import { PHONE, DESKTOP, useDemoBrowser } from './demo-browser';

const AUTH_AT_CHARGE = '4000002760003184';

/**
 * The money states of the demo page in Debian's Chromium, at a phone's and a desktop's width: what
 * the guest must act on leads, the bank's page opens beside the site, prices keep their currency.
 * A file of its own: its own sandbox, so its bookings and polls have the platform's budget to themselves.
 */
describe('the demo page tells the guest the truth about the money', () => {
  const demo = useDemoBrowser();
  const { open, status, topOf, keepScreenshot, expectTidyLayout, bookAndPay } = demo;

  it('writes a price of £262.50 as it is, with its currency', async () => {
    await open(PHONE);
    await demo.page.selectOption('#listing', 'lst-mountain');
    // Friday and Saturday nights cost 1.25 × £210 there.
    const weekend = demo.page.locator('#calendar .day:not(.taken)', { has: demo.page.locator('small', { hasText: '£262.50' }) }).first();
    await weekend.waitFor();
    expect(await demo.page.locator('#calendar').innerText()).not.toMatch(/\b263\b/);
    await expectTidyLayout(PHONE.width);
  });

  for (const viewport of [PHONE, DESKTOP]) {
    it(`leads with "Booking confirmed — payment needed" when the confirmed booking's charge fails, at ${viewport.width} px`, async () => {
      await open(viewport);
      await bookAndPay(viewport === PHONE ? 11 : 20, 2, CARDS.processorError);
      await status('Booking confirmed — payment needed');
      await demo.page.locator('#confirmation', { hasText: /Confirmation code \S+\. Payment failed\./ }).waitFor();
      // What the guest must act on comes first, then the code, then the replacement card.
      expect(await topOf('#final-status')).toBeLessThan(await topOf('#confirmation'));
      expect(await demo.page.locator('#retry').isVisible()).toBe(true);
      expect(await topOf('#confirmation')).toBeLessThan(await topOf('#retry'));
      expect(await demo.page.locator('#final-status').getAttribute('class')).toContain('failed');
      expect(await demo.page.locator('#confirmation').getAttribute('class')).toContain('quiet');
      expect(await demo.page.locator('#step-done').innerText()).not.toMatch(/Booking confirmed — confirmation code/);
      expect((await demo.page.locator('#final-message').innerText()).match(/another card/gi) ?? []).toHaveLength(1);
      await expectTidyLayout(viewport.width);
      await keepScreenshot(`demo-confirmed-payment-needed-${viewport.width}`);
    });
  }

  for (const viewport of [PHONE, DESKTOP]) {
    it(`opens the bank's page for a charge in a new tab while the site's page keeps polling, then shows it paid, at ${viewport.width} px`, async () => {
      await open(viewport);
      await bookAndPay(viewport === PHONE ? 14 : 26, 2, AUTH_AT_CHARGE);
      await status('confirm the payment with your bank');
      expect(await demo.page.locator('#extras').isHidden()).toBe(true);
      const siteUrl = demo.page.url();
      const [issuer] = await Promise.all([demo.page.waitForEvent('popup'), demo.page.click('#authenticate')]);
      await demo.page.locator('#authenticate-note', { hasText: 'opened in a new tab' }).waitFor();
      await issuer.getByRole('button', { name: 'Authenticate' }).click();
      await issuer.locator('#result', { hasText: 'Payment authenticated' }).waitFor();
      // The site's page never left; it learns the outcome by itself.
      await status('Paid');
      expect(demo.page.url()).toBe(siteUrl);
      expect(siteUrl).toMatch(/\/demo\?session=cs_[^&]+&status=succeeded$/);
      expect(await demo.page.locator('#authenticate').isHidden()).toBe(true);
      await issuer.close();
      await keepScreenshot(`demo-charge-authenticated-${viewport.width}`);
    });
  }
});
