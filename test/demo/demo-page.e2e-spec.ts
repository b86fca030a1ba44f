import request from 'supertest';
import { CARDS } from '../utils/checkout-client';
import { ARTIFACTS, DESKTOP, isoDay, PHONE } from '../utils/browser';
import { bookStay, fillCard } from '../utils/drop-in-checkout';
import { useDemoBrowser } from './demo-browser';

/**
 * The demo page (sandbox/demo/public) in Debian's Chromium, at a phone's and a desktop's width,
 * checked by what a guest sees: texts, and where the inputs are — never by pixels.
 */
describe('the demo checkout page in a real browser', () => {
  const demo = useDemoBrowser();
  const { open, status, topOf, keepScreenshot, expectTidyLayout, pickStay, bookAndPay } = demo;

  for (const viewport of [PHONE, DESKTOP]) {
    it(`books a stay at ${viewport.width} px: calendar, quote, guest, card, confirmation code and payment schedule`, async () => {
      await open(viewport);
      const fromDay = viewport === PHONE ? 2 : 5;
      await expectTidyLayout(viewport.width);
      // The grid names each month (it always spans a month change) and prices carry their currency.
      const months = await demo.page.locator('#calendar .month').allInnerTexts();
      expect(months.length).toBeGreaterThanOrEqual(2);
      for (const month of months) expect(month).toMatch(/^[A-Z][a-z]+ \d{4}$/);
      const firstOfMonth = demo.page.locator('#calendar .day[data-date$="-01"]').first();
      expect((await firstOfMonth.boundingBox())!.y).toBeGreaterThan((await demo.page.locator('#calendar .month').nth(1).boundingBox())!.y);
      expect(await demo.page.locator(`[data-date="${isoDay(fromDay)}"] small`).innerText()).toMatch(/^\$\d+(\.\d\d)?$/);
      await pickStay(fromDay, 3);
      const quoteText = await demo.page.locator('#quote').innerText();
      expect(quoteText).toContain('3 nights');
      expect(quoteText).toMatch(/Flexible: \$[\d,.]+/);
      expect(quoteText).toMatch(/cleaning \$60\.00/);

      await demo.page.click('#to-guest');
      await expectTidyLayout(viewport.width);
      await demo.page.click('#book');
      await demo.page.locator('#step-card').waitFor();
      // The card step says which stay is being paid for.
      const payingFor = await demo.page.locator('#paying-for').innerText();
      expect(payingFor).toContain('Paying for:');
      expect(payingFor).toContain('3 nights');
      expect(payingFor).toContain(
        new Date(`${isoDay(fromDay)}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }),
      );
      await expectTidyLayout(viewport.width);

      await demo.page.fill('#number', CARDS.noThreeDs);
      await demo.page.click('#pay');
      await status('Paid');
      await demo.page.locator('#confirmation', { hasText: /Booking confirmed — confirmation code \S+/ }).waitFor();
      expect(await demo.page.locator('#schedule').innerText()).toMatch(/\$[\d,.]+ — paid on/);
      expect(await demo.page.locator('#done-stay').innerText()).toContain('3 nights');
      await expectTidyLayout(viewport.width);
      expect(demo.failed).toEqual([]);
      await keepScreenshot(`demo-booked-${viewport.width}`);

      // An extra after paying: what is due and who collects it, never "Paid" and never "processing".
      expect(await demo.page.locator('#done-stay').innerText()).not.toMatch(/held/);
      await demo.page.selectOption('#extra', 'cleaning');
      await demo.page.fill('#quantity', '2');
      await demo.page.click('#add-extra');
      await status('$70.00 still due — the host will collect it');
      const message = await demo.page.locator('#final-message').innerText();
      expect(message).toContain('$70.00 is still due');
      expect(message).toContain('the host will collect it');
      expect(await demo.page.locator('#step-done').innerText()).not.toMatch(/Paid —|being processed|Nothing more to do/);
      expect(await topOf('#final-status')).toBeLessThan(await topOf('#schedule-box'));
      await expectTidyLayout(viewport.width);
      await keepScreenshot(`demo-extra-due-${viewport.width}`);
    });
  }

  it('shows a failed charge as a failure, offers no extras, and takes another card for the same booking', async () => {
    await open(PHONE);
    await bookAndPay(23, 2, CARDS.processorError);
    await status('payment needed');
    const shown = await demo.page.locator('#step-done').innerText();
    expect(shown).toContain('0341');
    expect(shown).toMatch(/another card/i);
    expect(shown).not.toMatch(/Paid —|Succeeded/);
    expect(await demo.page.locator('#final-status').getAttribute('class')).toContain('failed');
    expect(await demo.page.locator('#extras').isHidden()).toBe(true);
    await expectTidyLayout(PHONE.width);
    // What to do: another card, on the same booking.
    await demo.page.click('#retry');
    await demo.page.fill('#number', CARDS.noThreeDs);
    await demo.page.click('#pay');
    await status('Paid');
    await demo.page.locator('#confirmation', { hasText: 'confirmation code' }).waitFor();
  });

  it('goes through the 3-D Secure page and back, only to the service and the issuer', async () => {
    await open(DESKTOP);
    await bookAndPay(17, 2, CARDS.threeDs);
    await demo.page.getByRole('button', { name: 'Authenticate' }).click();
    await status('Paid');
    // The stay is said again on the page the issuer sent the guest back to.
    expect(await demo.page.locator('#done-stay').innerText()).toContain('2 nights');
    const serviceOrigin = new URL(demo.service.url).origin;
    const issuerOrigin = new URL(demo.sandbox.urls.payUrl).origin;
    for (const entry of demo.requested) {
      const [kind, url] = entry.split(' ');
      const origin = new URL(url).origin;
      if (kind === 'sub') expect(origin).toBe(serviceOrigin);
      else expect([serviceOrigin, issuerOrigin]).toContain(origin);
    }
    expect(demo.requested.some((entry) => entry.startsWith(`nav ${issuerOrigin}`))).toBe(true);
  });

  it('pays an existing reservation: a split payment shows what is scheduled and when, extras explained; the fixture is then marked used', async () => {
    await open(PHONE);
    await demo.page.click('#mode-pay');
    await demo.page.selectOption('#reservation', 'res-checkout-eur');
    await demo.page.click('#start');
    await demo.page.locator('#step-card').waitFor();
    expect(await demo.page.locator('#paying-for').innerText()).toContain('res-checkout-eur');
    await demo.page.fill('#number', CARDS.noThreeDs);
    await demo.page.click('#pay');
    // The first instalment is charged a moment after the card is on file: the page shows it paid by itself.
    await demo.page.locator('#schedule', { hasText: 'paid on' }).waitFor();
    await status('Card on file — next payment');
    expect(await demo.page.locator('#final-status').innerText()).toMatch(/next payment €[\d,.]+ on \w{3} \d{1,2} \w{3} \d{4}$/);
    expect(await demo.page.locator('#schedule').innerText()).toMatch(/paid on[\s\S]*scheduled due/);
    await demo.page.locator('#extras-explain', { hasText: 'your card ending 4242, or by the host' }).waitFor();
    await demo.page.click('#add-extra');
    await demo.page.locator('#extra-result', { hasText: 'Added:' }).waitFor();
    // The schedule does not cover the extra: said beside the next payment, not hidden in it.
    await demo.page
      .locator('#final-message', { hasText: 'A further €40.00 is due and not scheduled on the card: the host will collect it.' })
      .waitFor();
    await keepScreenshot('demo-split-with-extra-390');

    await demo.page.goto(`${demo.service.url}/demo/reference`);
    await demo.page.click('#mode-pay');
    const option = demo.page.locator('#reservation option[value="res-checkout-eur"]');
    expect(await option.innerText()).toContain('used');
    expect(await option.isDisabled()).toBe(true);
  });

  it('pays a fresh reservation: a failed 3-D Secure authentication, then a second card', async () => {
    await open(DESKTOP);
    await demo.page.click('#mode-pay');
    await demo.page.click('#start');
    await demo.page.locator('#step-card').waitFor();
    // The fresh reservation's confirmation code is filled in as a guest would type it from their confirmation.
    expect(await demo.page.inputValue('#confirmation-code')).toMatch(/^SBX-/);
    await demo.page.fill('#number', CARDS.threeDs);
    await demo.page.click('#pay');
    await demo.page.getByRole('button', { name: 'Fail' }).click();
    await status('Payment failed — the card was not accepted');
    // One sentence says what to do, once.
    const explained = await demo.page.locator('#final-message').innerText();
    expect(explained.match(/another card/gi) ?? []).toHaveLength(1);
    await keepScreenshot('demo-3ds-failed-1280');
    expect(await demo.page.locator('#extras').isHidden()).toBe(true);
    await demo.page.click('#retry');
    await demo.page.fill('#number', CARDS.noThreeDs);
    await demo.page.click('#pay');
    await status('Paid');
    expect(await demo.page.locator('#done-stay').innerText()).toMatch(/Paying for: reservation res-\S+ at Seaside Villa/);
  });

  it('shows a validation error next to its field', async () => {
    await open(PHONE);
    await demo.page.click('#mode-pay');
    await demo.page.click('#start');
    await demo.page.locator('#step-card').waitFor();
    await demo.page.fill('#number', '4242424242424241');
    await demo.page.click('#pay');
    await demo.page.locator('.field-error[data-for="card.number"]', { hasText: 'valid card number' }).waitFor();
    expect(await demo.page.getAttribute('#number', 'aria-invalid')).toBe('true');
  });

  it('is, at /demo, a sample property site that books and pays through the drop-in checkout, and lists what it heard', async () => {
    const page = await (await demo.browser.newContext({ viewport: DESKTOP })).newPage();
    try {
      page.setDefaultTimeout(15_000);
      await page.goto(`${demo.service.url}/demo?locale=de`);
      const checkout = page.frameLocator('iframe[title="Booking checkout"]');
      // The sample page hands its language to the checkout.
      await checkout.getByRole('heading', { name: 'Reisedaten wählen' }).waitFor();
      await page.goto(`${demo.service.url}/demo`);
      await checkout.getByRole('heading', { name: 'Choose your dates' }).waitFor();
      await bookStay(checkout, 36, 2);
      await fillCard(checkout, CARDS.noThreeDs);
      await checkout.locator('#pay').click();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
      await page.locator('#heard li', { hasText: 'checkout.paid' }).waitFor();
      const heard = await page.locator('#heard li').allInnerTexts();
      expect(heard.map((line) => line.split(' ')[0])).toEqual(['checkout.ready', 'checkout.quoted', 'checkout.booked', 'checkout.paid']);
      await page.screenshot({ path: `${ARTIFACTS}/demo-site-1280.png`, fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it('is served with a strict Content-Security-Policy, and a favicon', async () => {
    const answer = await request(demo.service.url).get('/demo/reference').expect(200);
    expect(answer.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    await request(demo.service.url)
      .get('/demo/favicon.svg')
      .expect(200)
      .expect('Content-Type', /image\/svg\+xml/);
  });
});
