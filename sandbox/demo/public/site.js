// The sample site's own script: a language chosen in the page's address goes to the checkout
// (data-locale), and what the checkout tells the page is listed, as a site would log it.
const place = document.querySelector('[data-booking-checkout]');
const locale = new URLSearchParams(window.location.search).get('locale');
if (locale) place.dataset.locale = locale;
for (const type of [
  'checkout.ready',
  'checkout.quoted',
  'checkout.booked',
  'checkout.paid',
  'checkout.payment_failed',
  'checkout.closed',
]) {
  place.addEventListener(type, (event) => {
    const item = document.createElement('li');
    const detail = event.detail && Object.keys(event.detail).length > 0 ? ` ${JSON.stringify(event.detail)}` : '';
    item.textContent = `${type}${detail}`;
    document.getElementById('heard').append(item);
  });
}
