import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import path from 'node:path';
import { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { Browser, FrameLocator, Page } from 'playwright-core';
import request from 'supertest';
import { ARTIFACTS, DESKTOP, isoDay, launchChromium, PHONE } from '../utils/browser';
import { bookStay, fillCard, monthsSettled, pickDate } from '../utils/drop-in-checkout';
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
    const attributes = `data-listing-id="${asked.get('listing') ?? 'lst-seaside'}"${asked.get('locale') === 'de' ? ' data-locale="de"' : ''}`;
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

  /** The frame's calendar reads, in order, with how many months the test had paged when each was sent. */
  let calendarReads: { from: string; to: string; paged: number }[] = [];
  let paged = 0;

  async function openSite(viewport: { width: number; height: number }, query = ''): Promise<FrameLocator> {
    page = await (await browser.newContext({ viewport })).newPage();
    page.setDefaultTimeout(15_000);
    calendarReads = [];
    paged = 0;
    page.on('request', (sent) => {
      const url = new URL(sent.url());
      if (url.pathname.endsWith('/calendar'))
        calendarReads.push({ from: url.searchParams.get('from')!, to: url.searchParams.get('to')!, paged });
    });
    await page.goto(`${site.url}/${query}`);
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
    /** What has focus in the checkout's page: a day's date, an element's id, else its tag (BODY while the site's page has it). */
    const focusedIn = (checkout: FrameLocator) =>
      checkout.locator('html').evaluate((html) => {
        const active = html.ownerDocument.activeElement!;
        return active.getAttribute('data-date') || active.id || active.tagName;
      });

    /** Until focus leaves `was`: a key that crosses into a month not read yet moves it once the month is read. */
    async function movedFrom(checkout: FrameLocator, was: string): Promise<string> {
      for (let waited = 0; waited < 100; waited += 1) {
        const now = await focusedIn(checkout);
        if (now !== was) return now;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return was;
    }

    /** ArrowRight from the focused day until `date` has focus. */
    async function arrowTo(checkout: FrameLocator, date: string): Promise<void> {
      for (let presses = 0; presses < 100 && (await focusedIn(checkout)) < date; presses += 1) {
        const was = await focusedIn(checkout);
        await page.keyboard.press('ArrowRight');
        await movedFrom(checkout, was);
      }
      expect(await focusedIn(checkout)).toBe(date);
    }

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

    it('says "requested" while the platform has not confirmed the booking and "confirmed" once it has, without a reload, as the session says', async () => {
      const checkout = await openSite(DESKTOP);
      await bookStay(checkout, 80, 2);
      const sessionIds = new Set<string>();
      const seen = (sent: { url(): string }) => {
        const named = /\/checkout\/sessions\/([^/?]+)/.exec(sent.url());
        if (named) sessionIds.add(named[1]);
      };
      page.on('request', seen);
      // The confirmation's first try and its resend are refused: the sweep's next try, 15 s on, confirms it.
      world.sandbox.control.forceStatus('reservationStatus', 503, { times: 2 });
      await fillCard(checkout, CARDS.noThreeDs);
      await checkout.locator('#pay').click();
      await checkout.getByRole('heading', { name: 'Booking requested' }).waitFor();
      page.off('request', seen);
      expect(sessionIds.size).toBe(1);
      const booking = async () => {
        const answer = await fetch(`${service}/checkout/sessions/${[...sessionIds][0]}`);
        return ((await answer.json()) as { booking: { status: string } }).booking.status;
      };
      expect(await booking()).toBe('reserved');
      await checkout.getByRole('heading', { name: 'Booking confirmed' }).waitFor({ timeout: 60_000 });
      expect(await booking()).toBe('confirmed');
    }, 90_000);

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
      await pickDate(checkout, isoDay(arrival));
      await pickDate(checkout, isoDay(arrival + 2));
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
      const focused = () => focusedIn(checkout);
      /** Tab (and only Tab) until the element is focused, then the key that presses it. */
      const reach = async (matches: string, key = 'Enter') => {
        for (let presses = 0; presses < 200 && (await focused()) !== matches; presses += 1) await page.keyboard.press('Tab');
        expect(await focused()).toBe(matches);
        if (key) await page.keyboard.press(key);
      };
      // Loading takes no focus from the site's page: the guest tabs into the checkout.
      expect(await focused()).toBe('BODY');
      // The calendar is one tab stop: Tab reaches its day, the arrows the days wanted.
      await reach((await checkout.locator('.day[tabindex="0"]').getAttribute('data-date')) ?? 'a day', '');
      await arrowTo(checkout, isoDay(33));
      await page.keyboard.press('Enter');
      await arrowTo(checkout, isoDay(35));
      await page.keyboard.press('Enter');
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

    const SAID = {
      en: {
        query: '',
        tooShort: 'This stay needs at least 2 nights. Please choose a later departure day.',
        rejected: 'Coupon NOPE10 was not applied: it is not valid for this stay. The prices shown are without it.',
        applied: 'Coupon SANDBOX10 applied: the prices include it.',
        arrival: 61,
      },
      de: {
        query: '?locale=de',
        tooShort: 'Mindestaufenthalt: 2 Nächte. Bitte wählen Sie einen späteren Abreisetag.',
        rejected: 'Gutschein NOPE10 wurde nicht eingelöst: Er gilt nicht für diesen Aufenthalt. Die angezeigten Preise sind ohne ihn.',
        applied: 'Gutschein SANDBOX10 eingelöst: Die Preise enthalten ihn.',
        arrival: 65,
      },
    } as const;

    it.each(['en', 'de'] as const)(
      "says in its own words (%s) a stay's minimum and whether the coupon is in the prices, beside the coupon field, politely, axe clean",
      async (locale) => {
        const said = SAID[locale];
        const checkout = await openSite(DESKTOP, said.query);
        const grave: string[] = [];
        const audit = async (step: string) => {
          const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
          for (const violation of violations.filter((found) => found.impact === 'serious' || found.impact === 'critical'))
            grave.push(`${step}: ${violation.id}`);
        };
        // One night where the listing asks for two: the platform refuses, the frame names the minimum.
        await pickDate(checkout, isoDay(said.arrival));
        await pickDate(checkout, isoDay(said.arrival + 1));
        await checkout.locator('#see-prices').click();
        await checkout.locator('#stay-error:not(:empty)').waitFor();
        await expect(checkout.locator('#stay-error').innerText()).resolves.toBe(said.tooShort);
        await audit('too short');
        // Two nights with a coupon the platform does not take: the prices, and why the coupon is not in them.
        await pickDate(checkout, isoDay(said.arrival));
        await pickDate(checkout, isoDay(said.arrival + 2));
        await checkout.locator('#coupon').fill('nope10');
        await checkout.locator('#see-prices').click();
        await checkout.locator('.plan').first().waitFor();
        await expect(checkout.locator('#plan-coupon').innerText()).resolves.toBe(said.rejected);
        await expect(checkout.locator('#plan-coupon').getAttribute('role')).resolves.toBe('status');
        await expect(checkout.locator('.plan small').first().innerText()).resolves.not.toMatch(/−/);
        await audit('coupon not applied');
        // Back at the stay: the same words under the coupon field, which they describe, in a polite live region.
        await checkout.locator('#plan-back').click();
        const beside = checkout.locator('#coupon-said');
        await expect(beside.innerText()).resolves.toBe(said.rejected);
        await expect(beside.getAttribute('aria-live')).resolves.toBe('polite');
        await expect(checkout.locator('#coupon').getAttribute('aria-describedby')).resolves.toBe('coupon-said');
        await checkout.locator('#coupon').fill('sandbox10');
        await expect(beside.innerText()).resolves.toBe('');
        await checkout.locator('#see-prices').click();
        await checkout.locator('#plan-coupon:not(:empty)').waitFor();
        await expect(checkout.locator('#plan-coupon').innerText()).resolves.toBe(said.applied);
        await audit('coupon applied');
        expect(grave).toEqual([]);
      },
    );

    describe('the calendar: 18 months, read a month or two at a time, one tab stop', () => {
      const DATE = /^\d{4}-\d{2}-\d{2}$/;
      const DAY_MS = 24 * 3600 * 1000;
      const addDays = (date: string, days: number) => new Date(Date.parse(date) + days * DAY_MS).toISOString().slice(0, 10);
      const monthAfter = (month: string, count: number) =>
        new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + count, 1)).toISOString().slice(0, 7);
      /** The same day `count` months on, or that month's last day (as PageDown moves). */
      const monthsOn = (date: string, count: number) => {
        const last = addDays(`${monthAfter(date.slice(0, 7), count + 1)}-01`, -1);
        const same = `${monthAfter(date.slice(0, 7), count)}-${date.slice(8)}`;
        return same < last ? same : last;
      };
      /** What the tests measured, kept beside the screenshots for a person to read. */
      const measured: Record<string, unknown> = {};
      afterAll(() => {
        mkdirSync(ARTIFACTS, { recursive: true });
        writeFileSync(path.join(ARTIFACTS, 'embed-calendar-measured.json'), `${JSON.stringify(measured, null, 2)}\n`);
      });
      const takenDays = (checkout: FrameLocator) =>
        checkout.locator('.day[aria-disabled="true"]').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-date')));

      it('books a stay about 10 months ahead by keyboard alone, from the first Tab to the rates, in at most 25 presses', async () => {
        const checkout = await openSite(DESKTOP);
        const focused = () => focusedIn(checkout);
        let presses = 0;
        const press = async (key: string) => {
          const was = await focused();
          presses += 1;
          await page.keyboard.press(key);
          if (key !== 'Enter') await movedFrom(checkout, was);
        };
        expect(await focused()).toBe('BODY');
        await press('Tab');
        expect(await focused()).toBe('close');
        // "Previous month" is disabled on the first month: the next stop is "Next month", then the calendar's one day.
        await press('Tab');
        expect(await focused()).toBe('month-next');
        await press('Tab');
        const first = await focused();
        expect(first).toMatch(DATE);
        expect(first).toBe(await checkout.locator('.day:not([aria-disabled])').first().getAttribute('data-date'));
        for (let month = 0; month < 10; month += 1) await press('PageDown');
        // The same day ten months on, or (when a month's day was taken on the way) a day or so later.
        const arrival = await focused();
        expect(arrival.slice(0, 7)).toBe(monthAfter(first.slice(0, 7), 10));
        expect(Number(arrival.slice(8)) - Number(monthsOn(first, 10).slice(8))).toBeGreaterThanOrEqual(0);
        expect(Number(arrival.slice(8)) - Number(monthsOn(first, 10).slice(8))).toBeLessThanOrEqual(3);
        await press('Enter');
        await press('ArrowRight');
        await press('ArrowRight');
        const departure = addDays(arrival, 2);
        expect(await focused()).toBe(departure);
        await press('Enter');
        for (const next of ['guests', 'coupon', 'see-prices']) {
          await press('Tab');
          expect(await focused()).toBe(next);
        }
        await press('Enter');
        await checkout.locator('.plan').first().waitFor();
        expect(await focused()).toBe('plan-heading');
        expect(presses).toBeLessThanOrEqual(25);
        measured.keyboardBooking = { arrival, departure, presses };
        const quoted = (await heard()).messages.find((message) => message.type === 'checkout.quoted');
        expect(quoted?.detail).toMatchObject({ checkIn: arrival, checkOut: departure });
        expect(Math.round((Date.parse(arrival) - Date.now()) / (30.44 * DAY_MS))).toBe(10);
      });

      it('skips taken days with the arrows, moves by week and month, and leaves with one Tab', async () => {
        const checkout = await openSite(DESKTOP);
        for (let presses = 0; presses < 5 && !DATE.test(await focusedIn(checkout)); presses += 1) await page.keyboard.press('Tab');
        const path = [await focusedIn(checkout)];
        while (path[path.length - 1] < isoDay(12)) {
          await page.keyboard.press('ArrowRight');
          path.push(await movedFrom(checkout, path[path.length - 1]));
        }
        const taken = await takenDays(checkout);
        // The sandbox's owner blocked seaside's nights 8 and 9: passed over, as is every day that cannot be chosen.
        expect(taken).toEqual(expect.arrayContaining([isoDay(8), isoDay(9)]));
        for (const [index, date] of path.entries()) {
          expect(taken).not.toContain(date);
          for (let between = index > 0 ? addDays(path[index - 1], 1) : date; between < date; between = addDays(between, 1))
            expect(taken).toContain(between);
        }
        // Back over the same days, in the same steps.
        for (let index = path.length - 2; index >= 0; index -= 1) {
          await page.keyboard.press('ArrowLeft');
          expect(await movedFrom(checkout, path[index + 1])).toBe(path[index]);
        }
        // A year on (where nothing is taken): the week's ends, a week, a month back.
        await page.keyboard.press('Shift+PageDown');
        const year = await movedFrom(checkout, path[0]);
        expect(year).toBe(monthsOn(path[0], 12));
        await checkout.locator(`h2#month-${year.slice(0, 7)}`).waitFor();
        await page.keyboard.press('End');
        const sunday = await movedFrom(checkout, year);
        expect(new Date(sunday).getUTCDay()).toBe(0);
        await page.keyboard.press('Home');
        const monday = await movedFrom(checkout, sunday);
        expect(monday).toBe(addDays(sunday, -6));
        await page.keyboard.press('ArrowDown');
        const week = await movedFrom(checkout, monday);
        expect(week).toBe(addDays(monday, 7));
        await page.keyboard.press('PageUp');
        const back = await movedFrom(checkout, week);
        expect(back).toBe(monthsOn(week, -1));
        // The calendar is one stop: Tab goes on to the next field.
        await page.keyboard.press('Tab');
        expect(await focusedIn(checkout)).toBe('guests');
        await page.keyboard.press('Shift+Tab');
        expect(await focusedIn(checkout)).toBe(back);
      });

      it.each([
        ['en', PHONE, 1],
        ['en', DESKTOP, 2],
        ['de', PHONE, 1],
        ['de', DESKTOP, 2],
      ])('in %s at %o shows %i month(s) side by side and leaves axe no serious or critical violation', async (locale, viewport, months) => {
        const checkout = await openSite(viewport, locale === 'de' ? '?locale=de' : '');
        await monthsSettled(checkout);
        const boxes = (await Promise.all((await checkout.locator('.month').all()).map((month) => month.boundingBox()))).filter(
          (box) => box !== null,
        );
        expect(boxes).toHaveLength(months);
        if (months === 2) {
          expect(boxes[1].x).toBeGreaterThanOrEqual(boxes[0].x + boxes[0].width);
          expect(Math.abs(boxes[1].y - boxes[0].y)).toBeLessThan(1);
        } else expect(boxes[0].width).toBeGreaterThan(viewport.width * 0.8);
        const findings: string[] = [];
        const audit = async (state: string) => {
          const axe = () => new AxeBuilder({ page });
          const tagged = await axe().withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
          // Experimental in axe, so asked for by name: a day's name holds what it shows.
          const named = await axe().withRules(['label-content-name-mismatch']).analyze();
          const grave = [...tagged.violations, ...named.violations].filter(
            (violation) =>
              violation.impact === 'serious' || violation.impact === 'critical' || violation.id === 'label-content-name-mismatch',
          );
          findings.push(
            `${state}: ${grave.map((violation) => `${violation.id} (${violation.nodes[0].target.join(' ')})`).join('; ') || 'none'}`,
          );
        };
        await audit('first months');
        // A month on, a stay chosen: what the screenshot shows.
        await checkout.locator('#month-next').click();
        await monthsSettled(checkout);
        await pickDate(checkout, isoDay(45));
        await pickDate(checkout, isoDay(48));
        await audit('a stay chosen');
        await keepScreenshot(`calendar-${locale}-${viewport.width}`);
        expect(findings).toEqual(['first months: none', 'a stay chosen: none']);
      });

      it('keeps the chosen stay while paging, and offers a month whose read failed again', async () => {
        // A listing no other test reads: its months are not in the service's cache, so the sandbox's fault reaches them.
        const checkout = await openSite(DESKTOP, '?listing=lst-mountain');
        await monthsSettled(checkout);
        const monday = [...Array(7).keys()].map((index) => isoDay(44 + index)).find((date) => new Date(date).getUTCDay() === 1)!;
        await pickDate(checkout, monday);
        await pickDate(checkout, addDays(monday, 3));
        const hint = await checkout.locator('#calendar-hint').innerText();
        expect(hint).toMatch(/3 nights/);
        const chosen = () =>
          checkout.locator('.day.chosen, .day.inside').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-date')));
        const stay = [monday, addDays(monday, 1), addDays(monday, 2), addDays(monday, 3)];
        expect(await chosen()).toEqual(stay);
        for (const id of ['month-next', 'month-next', 'month-next', 'month-back', 'month-back', 'month-back']) {
          await checkout.locator(`#${id}`).click();
          await monthsSettled(checkout);
        }
        expect(await chosen()).toEqual(stay);
        expect(await checkout.locator('#calendar-hint').innerText()).toBe(hint);
        await expect(checkout.locator(`[data-date="${monday}"] .said`).innerText()).resolves.toBe(', your check-in');
        // The platform fails: the next month not read yet says so, and is read again on the guest's press.
        world.sandbox.control.forceStatus('calendar', 500);
        try {
          for (let pages = 0; pages < 18 && (await checkout.locator('.month .error').count()) === 0; pages += 1) {
            await checkout.locator('#month-next').click();
            await monthsSettled(checkout);
          }
          await checkout
            .getByText(/could not be loaded\.$/)
            .first()
            .waitFor();
        } finally {
          world.sandbox.control.clearFaults();
        }
        const failed = (await checkout.locator('.month:has(.error) h2').first().getAttribute('id'))!;
        await keepScreenshot('calendar-failed-1280');
        await checkout.locator(`.month:has(h2#${failed})`).getByRole('button', { name: 'Try again' }).click();
        await checkout.locator(`table[aria-labelledby="${failed}"] .day`).first().waitFor();
        for (let pages = 0; pages < 18 && !(await checkout.locator(`[data-date="${monday}"]`).isVisible()); pages += 1) {
          await checkout.locator('#month-back').click();
          await monthsSettled(checkout);
        }
        expect(await chosen()).toEqual(stay);
      });

      it('reads 18 months in calls of a month or two, none past the months on the page and the next', async () => {
        const upstreamBefore = world.sandbox.control.counters.requests.calendar ?? 0;
        const checkout = await openSite(DESKTOP, '?listing=lst-city');
        await monthsSettled(checkout);
        const firstMonth = (await checkout.locator('.month h2').first().getAttribute('id'))!.slice('month-'.length);
        while (await checkout.locator('#month-next').isEnabled()) {
          paged += 1;
          await checkout.locator('#month-next').click();
          await monthsSettled(checkout);
        }
        const lastMonth = monthAfter(firstMonth, 18);
        // The last month on the page is 18 months on, priced by the platform.
        expect(await checkout.locator('.month h2').last().getAttribute('id')).toBe(`month-${lastMonth}`);
        await expect(checkout.locator(`table[aria-labelledby="month-${lastMonth}"] .day small`).first().innerText()).resolves.toMatch(
          /^EUR|€/,
        );
        measured.eighteenMonths = { pages: paged, from: firstMonth, to: lastMonth, reads: calendarReads };
        expect(calendarReads.length).toBeLessThanOrEqual(10);
        for (const read of calendarReads) {
          expect(read.to.slice(0, 7) <= monthAfter(read.from.slice(0, 7), 1)).toBe(true);
          // The page shows months `paged` and the one after; the next page adds one more.
          expect(read.to.slice(0, 7) <= monthAfter(firstMonth, read.paged + 2)).toBe(true);
        }
        // The service reads the platform a month at a time, each month once at most.
        expect((world.sandbox.control.counters.requests.calendar ?? 0) - upstreamBefore).toBeLessThanOrEqual(19);
      });
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
