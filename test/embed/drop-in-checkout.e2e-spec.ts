import { mkdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import path from 'node:path';
import { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { Browser, FrameLocator, Page } from 'playwright-core';
import request from 'supertest';
import { ARTIFACTS, DESKTOP, isoDay, launchChromium, PHONE } from '../utils/browser';
import { bookStay, fillCard } from '../utils/drop-in-checkout';
import { CARDS } from '../utils/checkout-client';
import { freePort } from '../utils/redis-server';
import { startSandboxedApps, SandboxedApps } from '../utils/sandboxed-apps';
import { startTestApp, TestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';

/** What the site's page heard: the frame's messages (by postMessage) and embed.js's DOM events, in order. */
interface Heard {
  messages: { type: string; detail: Record<string, unknown> }[];
  events: { type: string; detail: Record<string, unknown> }[];
}

/**
 * A property manager's page on an origin of its own (another port): the one script tag, and a
 * listener that keeps what the checkout tells the page. No Content-Security-Policy: a site's own.
 */
function sitePage(service: string, attributes: string, places = '<div data-booking-checkout></div>'): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Seaside rentals</title></head><body>
<h1>Seaside rentals</h1>
<script>
  window.heard = { messages: [], events: [] };
  window.addEventListener('message', (event) => {
    if (event.origin === ${JSON.stringify(service)} && event.data && event.data.type !== 'checkout.resize') window.heard.messages.push(event.data);
  });
  for (const type of ['checkout.ready', 'checkout.quoted', 'checkout.booked', 'checkout.paid', 'checkout.payment_failed', 'checkout.closed'])
    document.addEventListener(type, (event) => window.heard.events.push({ type, detail: event.detail }));
</script>
${places}
<script src="${service}/checkout/embed.js" ${attributes} defer></script>
</body></html>`;
}

async function startSite(service: string, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const asked = new URL(request.url ?? '/', 'http://site').searchParams;
    const attributes = `data-listing-id="lst-seaside"${asked.get('locale') === 'de' ? ' data-locale="de"' : ''}`;
    // Two listings on one page: one element each, the second with settings of its own.
    const places =
      asked.get('listings') === '2'
        ? '<div data-booking-checkout></div><div data-booking-checkout data-listing-id="lst-city" data-currency="code" data-color="#0a7d5a"></div>'
        : undefined;
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(sitePage(service, attributes, places));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the drop-in checkout: one script tag on a site of another origin', () => {
  let world: SandboxedApps;
  let service: string;
  let site: { url: string; close(): Promise<void> };
  let unlisted: { url: string; close(): Promise<void> };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // A site's origin is known before the service starts: it is its configuration.
    const sitePort = await freePort();
    const servicePort = await freePort();
    world = await startSandboxedApps(1, {
      env: {
        EMBED_ORIGINS: `http://127.0.0.1:${sitePort}`,
        // A site that sells only through the drop-in checkout: the bank's window ends on the service's page that closes it.
        PORT: String(servicePort),
        PUBLIC_BASE_URL: `http://127.0.0.1:${servicePort}`,
        CHECKOUT_RETURN_URL: `http://127.0.0.1:${servicePort}/checkout/embed/returned`,
        CORS_ORIGINS: 'https://api-only.example.com',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        BOOKING_HOLDS_PER_IP: '1000/h',
        PAYMENT_STATUS_REFRESH_SECONDS: '1',
        // A file of bookings one after another spends more than the platform's minute (a guest never would).
        UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        CHECKOUT_EXTRAS: JSON.stringify([
          { code: 'late-checkout', normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 },
        ]),
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100_000 } },
    });
    service = world.apps[0].url;
    site = await startSite(service, sitePort);
    unlisted = await startSite(service);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await unlisted?.close();
    await world?.close();
  });

  // A context per page: axe reads the frames of a page that has one of its own.
  afterEach(() => page?.context().close());

  /** Each state's picture, in test-artifacts/, for a person to look at. */
  async function keepScreenshot(name: string): Promise<void> {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `embed-${name}.png`), fullPage: true });
  }

  const heard = () => page.evaluate<Heard>('window.heard');
  const types = (list: { type: string }[]) => list.map((entry) => entry.type);

  async function openSite(viewport: { width: number; height: number }): Promise<FrameLocator> {
    page = await (await browser.newContext({ viewport })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(site.url);
    const checkout = page.frameLocator('iframe[title="Booking checkout"]');
    await checkout.locator('.day').first().waitFor();
    return checkout;
  }

  describe('who may frame it', () => {
    it('answers the listed sites in frame-ancestors, never *, with no X-Frame-Options to contradict it', async () => {
      const framed = await request(service)
        .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(site.url)}`)
        .expect(200);
      expect(framed.headers['content-security-policy']).toContain(`frame-ancestors ${site.url}`);
      expect(framed.headers['content-security-policy']).not.toMatch(/frame-ancestors[^;]*\*/);
      expect(framed.headers['x-frame-options']).toBeUndefined();
      expect(framed.text).toContain(`data-host="${site.url}"`);
      // Another origin asking for the page gets a refusal that says who can fix it, framed by nobody else either.
      const refused = await request(service)
        .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(unlisted.url)}`)
        .expect(403);
      expect(refused.text).toContain('EMBED_ORIGINS');
      expect(refused.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      // Only the site the page is asked for may frame it, not every listed one.
      expect(framed.headers['content-security-policy']).toMatch(new RegExp(`frame-ancestors ${site.url}$`));
      // A listing id of the wrong shape, or markup in a setting, never reaches the page.
      await request(service)
        .get(`/checkout/embed?listing=%3Cscript%3E&host=${encodeURIComponent(site.url)}`)
        .expect(400);
      const themed = await request(service)
        .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(site.url)}&color=%22%3E%3Cscript%3E&font=Georgia&radius=99`)
        .expect(200);
      expect(themed.text).not.toContain('<script>');
      expect(themed.text).toContain('data-font="Georgia"');
      expect(themed.text).not.toContain('data-radius');
      // A colour too light for the buttons' white text is dropped for the default (WCAG 4.5:1).
      const light = await request(service)
        .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(site.url)}&color=%23ffd700`)
        .expect(200);
      expect(light.text).not.toContain('data-color');
      // The API's own pages keep refusing every frame.
      const api = await request(service).get('/checkout/listings/lst-seaside').expect(200);
      expect(api.headers['x-frame-options']).toBe('SAMEORIGIN');
    });

    it('serves embed.js cacheable (ETag, Cache-Control) and the frame files by name only', async () => {
      const script = await request(service).get('/checkout/embed.js').expect(200);
      expect(script.headers['content-type']).toMatch(/text\/javascript/);
      expect(script.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
      await request(service).get('/checkout/embed.js').set('If-None-Match', script.headers.etag).expect(304);
      await request(service).get('/checkout/embed/assets/frame.js').expect(200);
      // The bank's window ends on a page of the service that closes itself, framed by nobody.
      const returned = await request(service).get('/checkout/embed/returned?session=cs_x&status=succeeded').expect(200);
      expect(returned.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(returned.text).toContain('/checkout/embed/assets/returned.js');
      for (const name of ['frame.html', 'returned.html', 'embed.js', '..%2Fembed.service.ts', 'nothing.js'])
        await request(service).get(`/checkout/embed/assets/${name}`).expect(404);
    });

    it('tells embed.js whether the page it runs on may embed the checkout (the browser names the origin)', async () => {
      const yes = await request(service).get('/checkout/embed/allowed').set('Origin', site.url).expect(200);
      expect(yes.body).toEqual({ allowed: true });
      expect(yes.headers['access-control-allow-origin']).toBe('*');
      const no = await request(service).get('/checkout/embed/allowed').set('Origin', unlisted.url).expect(200);
      expect(no.body).toEqual({ allowed: false });
    });
  });

  describe('in Chromium', () => {
    it('books and pays at 1280 px: the site hears quoted, booked and paid, and never the card', async () => {
      const checkout = await openSite(DESKTOP);
      await keepScreenshot('stay-1280');
      await bookStay(checkout, 3, 2, 'SANDBOX10');
      // The amount on the button, the order summary beside the card, the hold's end.
      await expect(checkout.locator('#pay').innerText()).resolves.toMatch(/^Pay \$[\d,]+\.\d\d$/);
      const summary = await checkout.locator('.summary').boundingBox();
      const card = await checkout.locator('.card-side').boundingBox();
      expect(summary!.x + summary!.width).toBeLessThanOrEqual(card!.x);
      await expect(checkout.locator('#hold').innerText()).resolves.toMatch(/held until .* min left to pay/);
      await fillCard(checkout, CARDS.noThreeDs);
      await expect(checkout.getByLabel('Card number').inputValue()).resolves.toBe('4242 4242 4242 4242');
      await expect(checkout.locator('#brand').innerText()).resolves.toBe('Visa');
      await keepScreenshot('card-1280');
      await checkout.locator('#pay').click();
      await checkout.locator('#confirmation', { hasText: 'Confirmation code' }).waitFor();
      await checkout.getByRole('heading', { name: 'Booking confirmed' }).waitFor();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
      await keepScreenshot('done-1280');
      const told = await heard();
      expect(types(told.messages)).toEqual(['checkout.ready', 'checkout.quoted', 'checkout.booked', 'checkout.paid']);
      expect(types(told.events)).toEqual(types(told.messages));
      expect(told.messages[2].detail).toMatchObject({ confirmationCode: expect.any(String), currency: 'USD' });
      expect(JSON.stringify(told)).not.toMatch(/4242 ?4242/);
      // An extra, once the money is arranged: added to the bill, and the money read again.
      await checkout.getByLabel('Extra').selectOption('late-checkout');
      await checkout.getByRole('button', { name: 'Add to my booking' }).click();
      await checkout.locator('#extra-result', { hasText: 'Added: Late checkout × 1, $40.00.' }).waitFor();
      // The frame is as tall as its content, grown or shrunk: the site's page shows it whole, with no scroll bar of its own.
      const content = Math.ceil(await checkout.locator('body').evaluate((body) => body.getBoundingClientRect().height));
      await page.waitForFunction(`document.querySelector('iframe').getBoundingClientRect().height === ${content}`);
      // The guest closes it: the site hears so, and (not keeping it open) the checkout goes away.
      await checkout.getByRole('button', { name: 'Close the checkout' }).click();
      await page.waitForFunction('window.heard.messages.some((message) => message.type === "checkout.closed")');
      await page.locator('[data-booking-checkout]').waitFor({ state: 'hidden' });
    });

    it('goes through 3-D Secure in a window of its own at 390 px, and comes back to the frame', async () => {
      const checkout = await openSite(PHONE);
      await bookStay(checkout, 12, 2);
      const summary = (await checkout.locator('.summary').boundingBox())!;
      expect(summary.y + summary.height).toBeLessThanOrEqual((await checkout.locator('.card-side').boundingBox())!.y);
      await fillCard(checkout, CARDS.threeDs);
      await keepScreenshot('card-390');
      const issuer = page.waitForEvent('popup');
      await checkout.locator('#pay').click();
      const popup = await issuer;
      await popup.getByRole('button', { name: 'Authenticate' }).click();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
      // The frame closes the issuer's window once the session has its outcome.
      if (!popup.isClosed()) await popup.waitForEvent('close');
      expect(types((await heard()).messages)).toContain('checkout.paid');
      // On a phone the order summary stands above the card.
      await expect(checkout.locator('#another-card').isHidden()).resolves.toBe(true);
      expect(types((await heard()).messages)).not.toContain('checkout.payment_failed');
    });

    it("keeps a card whose bank window the browser blocked: no refusal, and the guest opens the bank's page with a press of their own", async () => {
      const checkout = await openSite(DESKTOP);
      // The browser refuses the first window a page opens without the guest's press.
      await page.addInitScript(() => {
        const scope = globalThis as unknown as { open: (...args: unknown[]) => unknown };
        const open = scope.open.bind(scope);
        let refused = false;
        scope.open = (...args: unknown[]) => (refused ? open(...args) : ((refused = true), null));
      });
      await page.reload();
      await checkout.locator('.day').first().waitFor();
      await bookStay(checkout, 17, 2);
      await fillCard(checkout, CARDS.threeDs);
      await checkout.locator('#pay').click();
      await checkout.locator('#card-why', { hasText: 'blocked' }).waitFor();
      expect(types((await heard()).messages)).not.toContain('checkout.payment_failed');
      await expect(checkout.getByLabel('Card number').inputValue()).resolves.not.toBe('');
      const issuer = page.waitForEvent('popup');
      await checkout.getByRole('button', { name: "Open your bank's page" }).click();
      await (await issuer).getByRole('button', { name: 'Authenticate' }).click();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
    });

    it('puts an expiry the service refuses under the expiry field', async () => {
      const checkout = await openSite(DESKTOP);
      await bookStay(checkout, 5, 2);
      await fillCard(checkout, CARDS.noThreeDs);
      await checkout.getByLabel('Expiry (MM/YY)').fill('13/30');
      await checkout.locator('#pay').click();
      await checkout.locator('#expiry-error').waitFor();
      await expect(checkout.getByLabel('Expiry (MM/YY)').getAttribute('aria-invalid')).resolves.toBe('true');
      expect(await checkout.locator('#card-error').innerText()).not.toContain('card.exp');
    });

    it('says why the guest is back after a declined card, clears the card, and takes another', async () => {
      const checkout = await openSite(DESKTOP);
      await bookStay(checkout, 20, 2);
      await fillCard(checkout, CARDS.declined);
      await checkout.locator('#pay').click();
      await checkout.locator('#card-why', { hasText: 'The card was not accepted' }).waitFor();
      await expect(checkout.getByLabel('Card number').inputValue()).resolves.toBe('');
      await keepScreenshot('declined-1280');
      expect(types((await heard()).messages)).toContain('checkout.payment_failed');
      await fillCard(checkout, CARDS.noThreeDs);
      await checkout.locator('#pay').click();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
      expect(types((await heard()).messages).at(-1)).toBe('checkout.paid');
    });

    it('says a booking the property canceled before its confirmation is canceled, never confirmed nor requested, with what became of the card', async () => {
      const checkout = await openSite(DESKTOP);
      await bookStay(checkout, 28, 2);
      const booked = (await heard()).messages.find((message) => message.type === 'checkout.booked');
      const reservationId = String(booked?.detail.reservationId);
      // The property cancels it the moment the platform takes the card.
      void world.sandbox.control.whenActed('paymentMethods').then(() => world.sandbox.control.cancelReservation(reservationId));
      await fillCard(checkout, CARDS.noThreeDs);
      await checkout.locator('#pay').click();
      await checkout.getByRole('heading', { name: /^Booking canceled by the property/ }).waitFor();
      await checkout.locator('#confirmation', { hasText: 'Your card stays on file with the property' }).waitFor();
      await keepScreenshot('canceled-1280');
    });

    it('says a charge that failed after the card was taken, never "paid", and takes another card for the same booking', async () => {
      const checkout = await openSite(DESKTOP);
      await bookStay(checkout, 15, 2);
      await fillCard(checkout, CARDS.processorError);
      await checkout.locator('#pay').click();
      await checkout.getByRole('button', { name: 'Use another card' }).waitFor();
      await keepScreenshot('charge-failed-1280');
      // Never a confirmation above a failure: the lead line says what the guest must do.
      await checkout.getByRole('heading', { name: /^Booking (confirmed|requested): payment needed$/ }).waitFor();
      expect(types((await heard()).messages)).not.toContain('checkout.paid');
      expect((await heard()).messages.at(-1)).toEqual({
        type: 'checkout.payment_failed',
        detail: expect.objectContaining({ code: 'charge_failed' }),
      });
      await checkout.getByRole('button', { name: 'Use another card' }).click();
      await checkout.locator('#card-why:not(:empty)').waitFor();
      // The replacement needs 3-D Secure: the session stays succeeded with a next action, and the bank is asked all the same.
      await fillCard(checkout, CARDS.threeDs);
      const issuer = page.waitForEvent('popup');
      await checkout.locator('#pay').click();
      await (await issuer).getByRole('button', { name: 'Authenticate' }).click();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
      expect(types((await heard()).messages).filter((type) => type === 'checkout.paid')).toHaveLength(1);
      // Two cards, two charges and a bank's window, each awaited: a walk longer than one step's default.
    }, 60_000);

    it("asks the guest to confirm a charge with the bank, in the bank's window, then says paid", async () => {
      const checkout = await openSite(PHONE);
      await bookStay(checkout, 39, 2);
      await fillCard(checkout, CARDS.chargeAuthentication);
      await checkout.locator('#pay').click();
      await checkout.locator('#money', { hasText: 'Your bank asks you to confirm the payment.' }).waitFor();
      const bank = page.context().waitForEvent('page');
      await checkout.getByRole('button', { name: 'Confirm with your bank' }).click();
      await (await bank).getByRole('button', { name: 'Authenticate' }).click();
      await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
      expect(types((await heard()).messages)).toContain('checkout.paid');
    });

    it.each([
      ['390', PHONE],
      ['1280', DESKTOP],
    ])('leaves axe no serious or critical violation on any step at %s px', async (_width, viewport) => {
      const checkout = await openSite(viewport);
      const steps: string[] = [];
      const audit = async (step: string) => {
        const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
        const grave = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
        await keepScreenshot(`${step.replace(/\W+/g, '-')}-${viewport.width}`);
        steps.push(
          `${step}: ${grave.map((violation) => `${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`).join('; ') || 'none'}`,
        );
      };
      await audit('stay');
      // Each width books dates of its own (a hold keeps them).
      const arrival = viewport === PHONE ? 26 : 23;
      await checkout.locator(`[data-date="${isoDay(arrival)}"]`).click();
      await checkout.locator(`[data-date="${isoDay(arrival + 2)}"]`).click();
      await checkout.getByRole('button', { name: 'See prices' }).click();
      await checkout.locator('.plan').first().waitFor();
      await audit('rate');
      await checkout.getByRole('button', { name: 'Continue' }).click();
      await checkout.getByRole('button', { name: 'Book and continue to payment' }).click();
      await checkout.locator('#guest-error:not(:empty)').waitFor();
      await audit('guest, refused');
      await checkout.getByLabel('First name').fill('Ada');
      await checkout.getByLabel('Last name').fill('Guest');
      await checkout.getByLabel('Email').fill(`ada-${viewport.width}@example.com`);
      await checkout.getByRole('button', { name: 'Book and continue to payment' }).click();
      await checkout.getByRole('heading', { name: 'Pay by card' }).waitFor();
      await audit('card');
      await fillCard(checkout, CARDS.declined);
      await checkout.locator('#pay').click();
      await checkout.locator('#card-why:not(:empty)').waitFor();
      await audit('card, declined');
      await fillCard(checkout, CARDS.noThreeDs);
      await checkout.locator('#pay').click();
      await checkout.locator('#confirmation', { hasText: 'Confirmation code' }).waitFor();
      await audit('done');
      expect(steps).toEqual(['stay', 'rate', 'guest, refused', 'card', 'card, declined', 'done'].map((step) => `${step}: none`));
    });

    it("is booked and paid by keyboard alone, focus on each step's heading and on what went wrong", async () => {
      const checkout = await openSite(DESKTOP);
      // What has focus in the checkout's page (its body while the focus is still on the site's page).
      const focused = () =>
        checkout.locator('html').evaluate((html) => {
          const active = html.ownerDocument.activeElement!;
          return active.id || active.getAttribute('data-date') || active.tagName;
        });
      /** Tab (and only Tab) until the element is focused, then the key that presses it. */
      const reach = async (matches: string, key = 'Enter') => {
        for (let presses = 0; presses < 200 && (await focused()) !== matches; presses += 1) await page.keyboard.press('Tab');
        expect(await focused()).toBe(matches);
        if (key) await page.keyboard.press(key);
      };
      // Loading takes no focus from the site's page: the guest tabs into the checkout.
      expect(await focused()).toBe('BODY');
      await reach(isoDay(33));
      await reach(isoDay(35));
      await reach('see-prices');
      await checkout.locator('.plan').first().waitFor();
      expect(await focused()).toBe('plan-heading');
      await reach('to-guest');
      expect(await focused()).toBe('guest-heading');
      await reach('book');
      // Refused: focus goes to the first field wrong.
      await checkout.locator('#guest-error:not(:empty)').waitFor();
      expect(await focused()).toBe('first-name');
      // Each field says what is wrong with it, in the words of its label, and is described by it.
      await expect(checkout.locator('#first-name-error').innerText()).resolves.toBe('First name should not be empty');
      await expect(checkout.getByLabel('First name').getAttribute('aria-describedby')).resolves.toBe('first-name-error');
      await page.keyboard.type('Kay');
      await reach('last-name', '');
      await page.keyboard.type('Guest');
      await reach('email', '');
      await page.keyboard.type('kay@example.com');
      await reach('book');
      await checkout.getByRole('heading', { name: 'Pay by card' }).waitFor();
      expect(await focused()).toBe('card-heading');
      const typeInto = async (id: string, text: string) => {
        await reach(id, '');
        await page.keyboard.type(text);
      };
      await typeInto('number', CARDS.noThreeDs);
      const year = String(new Date().getFullYear() + 2).slice(2);
      await typeInto('expiry', `1/${year}`);
      await typeInto('cvc', '737');
      await typeInto('card-name', 'Kay Guest');
      await typeInto('line1', '1 Ocean Drive');
      await typeInto('postal-code', '33139');
      await typeInto('city', 'Miami Beach');
      await typeInto('country', 'US');
      // "1/" is January: the month is written with its two digits.
      await expect(checkout.getByLabel('Expiry (MM/YY)').inputValue()).resolves.toBe(`01/${year}`);
      await reach('pay');
      await checkout.getByRole('heading', { name: /Booking (confirmed|requested)/ }).waitFor();
      expect(await focused()).toBe('done-heading');
    });

    it('speaks German, with dates and amounts written the German way, when the site says data-locale="de"', async () => {
      const german = await request(service)
        .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(site.url)}&locale=de`)
        .expect(200);
      expect(german.text).toContain('lang="de"');
      page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
      await page.goto(`${site.url}/?locale=de`);
      const checkout = page.frameLocator('iframe[title="Booking checkout"]');
      await checkout.getByRole('heading', { name: 'Reisedaten wählen' }).waitFor();
      await expect(checkout.locator('.month h2').first().innerText()).resolves.toMatch(
        /^(Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}$/,
      );
      await expect(checkout.locator('.day:not(.taken) small').first().innerText()).resolves.toMatch(/^\d+\s\$$/);
    });

    describe("with the platform's payment-form SDK (CARD_COLLECTION=sdk)", () => {
      let sdkApp: TestApp;
      let sdkSite: { url: string; close(): Promise<void> };

      beforeAll(async () => {
        const port = await freePort();
        sdkApp = await startTestApp(
          {},
          { config: testConfig({ ...world.env, PORT: '0', CARD_COLLECTION: 'sdk', EMBED_ORIGINS: `http://127.0.0.1:${port}` }) },
        );
        sdkSite = await startSite(sdkApp.url, port);
      });

      afterAll(async () => {
        await sdkSite?.close();
        await sdkApp?.close();
      });

      it('lets the pay host load its script and frame its form, and nothing else', async () => {
        const payOrigin = new URL(world.sandbox.urls.payUrl).origin;
        const framed = await request(sdkApp.url)
          .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(sdkSite.url)}`)
          .expect(200);
        const policy = framed.headers['content-security-policy'];
        expect(policy).toContain(`script-src 'self' ${payOrigin};`);
        expect(policy).toContain(`frame-src ${payOrigin};`);
        expect(framed.text).toContain(`data-sdk-script="${payOrigin}/tokenization/v2/init.js"`);
        // The service's own form keeps the page to itself.
        const own = await request(service)
          .get(`/checkout/embed?listing=lst-seaside&host=${encodeURIComponent(site.url)}`)
          .expect(200);
        expect(own.headers['content-security-policy']).not.toContain(payOrigin);
      });

      it('books and pays with a token the SDK made: the service is sent the token, never the card', async () => {
        page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
        page.setDefaultTimeout(15_000);
        const submitted: string[] = [];
        page.on('request', (sent) => {
          if (sent.url().endsWith('/payment-method')) submitted.push(sent.postData() ?? '');
        });
        await page.goto(sdkSite.url);
        const checkout = page.frameLocator('iframe[title="Booking checkout"]');
        await checkout.locator('.day').first().waitFor();
        await bookStay(checkout, 36, 2);
        expect(await checkout.locator('#card-fields').isHidden()).toBe(true);
        const form = checkout.frameLocator('iframe[title="Card details"]');
        await form.getByLabel('Card number').fill(CARDS.noThreeDs);
        await form.getByLabel('Expiry (MM/YY)').fill(`12/${String(new Date().getFullYear() + 2).slice(2)}`);
        await form.getByLabel('Security code').fill('737');
        await form.getByLabel('Name on card').fill('Olivia Guest');
        await form.getByLabel('Street').fill('1 Ocean Drive');
        await form.getByLabel('Zip code').fill('33139');
        await form.getByLabel('City').fill('Miami Beach');
        await form.getByLabel('Country (2 letters)').fill('US');
        await checkout.locator('#pay').click();
        await checkout.locator('#money', { hasText: 'Paid' }).waitFor();
        expect(submitted).toHaveLength(1);
        expect(JSON.parse(submitted[0])).toEqual({ token: expect.stringMatching(/^tok_/) });
        expect(types((await heard()).messages)).toContain('checkout.paid');
      });
    });

    it('sells two listings on one page, each element with its own listing and settings', async () => {
      page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
      await page.goto(`${site.url}/?listings=2`);
      const frames = page.locator('iframe[title="Booking checkout"]');
      await page.waitForFunction('document.querySelectorAll("iframe").length === 2');
      const [seaside, city] = [page.frameLocator('iframe >> nth=0'), page.frameLocator('iframe >> nth=1')];
      await seaside.locator('#listing-title', { hasText: 'Seaside Villa' }).waitFor();
      await city.locator('.day').first().waitFor();
      expect(await city.locator('#listing-title').innerText()).not.toContain('Seaside');
      expect(await frames.count()).toBe(2);
      // The second's amounts name their currency by its code; its colour is the site's.
      await expect(city.locator('.day:not(.taken) small').first().innerText()).resolves.toMatch(/^EUR\s\d+$/);
      await expect(seaside.locator('.day:not(.taken) small').first().innerText()).resolves.toMatch(/^\$\d+$/);
      await expect(
        city
          .locator('#see-prices')
          .evaluate(
            (button) =>
              (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(button)
                .backgroundColor,
          ),
      ).resolves.toBe('rgb(10, 125, 90)');
    });

    it('gives a site that is not listed nothing usable, and says why on its console', async () => {
      page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
      const console: string[] = [];
      page.on('console', (message) => console.push(message.text()));
      const said = page.waitForEvent('console', (message) => message.text().includes('may not show the checkout'));
      await page.goto(unlisted.url);
      await said;
      expect(await page.locator('iframe').count()).toBe(0);
      expect(console.join('\n')).toContain('EMBED_ORIGINS');
    });
  });
});
