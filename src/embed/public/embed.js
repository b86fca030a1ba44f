// The drop-in booking checkout: one script tag on a property manager's site.
//   <script src="https://checkout.example.com/checkout/embed.js" data-listing-id="L1" defer></script>
// It frames the service's checkout page (the card fields stay on the service's origin), sizes the
// frame to its content and passes the checkout's events on to the page (docs/integrating-the-checkout.md).
(() => {
  'use strict';
  const VERSION = '1';
  const script = document.currentScript;
  if (!script || !script.src) return;
  const service = new URL(script.src).origin;
  const EVENTS = new Set([
    'checkout.ready',
    'checkout.quoted',
    'checkout.booked',
    'checkout.paid',
    'checkout.payment_failed',
    'checkout.closed',
  ]);
  const SETTINGS = { locale: 'locale', currency: 'currency', color: 'color', font: 'font', radius: 'radius' };

  /** Where the checkouts go: each `[data-booking-checkout]`, or one right after the script. */
  function places() {
    const marked = [...document.querySelectorAll('[data-booking-checkout]')];
    if (marked.length > 0) return marked;
    const place = document.createElement('div');
    place.setAttribute('data-booking-checkout', '');
    script.after(place);
    return [place];
  }

  /** A setting of a place, else of the script tag. */
  const setting = (place, name) => place.dataset[name] ?? script.dataset[name];

  function frameFor(place) {
    const listingId = setting(place, 'listingId');
    if (!listingId) {
      console.error(
        'Booking checkout: no listing. Add data-listing-id="…" to the script tag or to the element with data-booking-checkout.',
      );
      return;
    }
    const address = new URL('/checkout/embed', service);
    address.searchParams.set('listing', listingId);
    address.searchParams.set('host', window.location.origin);
    address.searchParams.set('v', VERSION);
    for (const [parameter, name] of Object.entries(SETTINGS)) {
      const value = setting(place, name);
      if (value) address.searchParams.set(parameter, value);
    }
    const frame = document.createElement('iframe');
    frame.src = address.href;
    frame.title = 'Booking checkout';
    frame.setAttribute('allow', 'payment');
    frame.style.cssText = 'display:block;width:100%;min-width:300px;height:640px;border:0;';
    window.addEventListener('message', (event) => {
      // Only this frame's page, on the service's origin, speaks for the checkout.
      if (event.origin !== service || event.source !== frame.contentWindow) return;
      const { type, detail } = event.data || {};
      if (type === 'checkout.resize' && Number.isFinite(detail?.height)) {
        frame.style.height = `${Math.ceil(detail.height)}px`;
        return;
      }
      if (!EVENTS.has(type)) return;
      // The site may keep the checkout open on Close (preventDefault); by default it goes away.
      const closing = type === 'checkout.closed';
      const heard = place.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, cancelable: closing }));
      if (closing && heard) place.hidden = true;
    });
    place.replaceChildren(frame);
  }

  async function start() {
    let answer;
    try {
      // The browser names the page's origin (Origin) on a request to another origin; on its own origin it
      // sends none, so the page says it too.
      const asked = new URL('/checkout/embed/allowed', service);
      asked.searchParams.set('origin', window.location.origin);
      answer = await fetch(asked, { credentials: 'omit' });
    } catch {
      console.error(`Booking checkout: ${service} could not be reached.`);
      return;
    }
    if (!answer.ok) {
      console.error(`Booking checkout: ${service} answered ${answer.status}; the checkout is not shown. Try again later.`);
      return;
    }
    if ((await answer.json()).allowed !== true) {
      console.error(
        `Booking checkout: this site (${window.location.origin}) may not show the checkout of ${service}. ` +
          'Its owner can add the origin to EMBED_ORIGINS (or CORS_ORIGINS) of the checkout service.',
      );
      return;
    }
    places().forEach(frameFor);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start(), { once: true });
  else void start();
})();
