/**
 * What a site may set on the drop-in checkout (`data-*` attributes of its script tag, carried to
 * the frame in its address). Each is checked here: a value that fails is dropped for the default,
 * so a typo never breaks a site's checkout, and nothing a site sends reaches the page unchecked.
 */
export interface EmbedOptions {
  listingId: string;
  locale: 'en' | 'de';
  /** How amounts name their currency (Intl's currencyDisplay). */
  currencyDisplay: 'symbol' | 'code' | 'name';
  /** A colour for buttons and the chosen days, `#rgb` or `#rrggbb`. */
  color?: string;
  /** A font family name the site already loads, else the system font. */
  font?: string;
  /** Corner radius in px, 0–24. */
  radius?: number;
}

const LISTING_ID = /^[A-Za-z0-9_-]{1,64}$/;
const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FONT = /^[A-Za-z0-9 -]{1,40}$/;

/** The listing id when it has the platform's shape, else null (the frame then says it cannot sell). */
export function embedOptions(query: Record<string, string | undefined>): EmbedOptions | null {
  const listingId = query.listing ?? '';
  if (!LISTING_ID.test(listingId)) return null;
  const locale = (query.locale ?? '').toLowerCase().slice(0, 2);
  const display = query.currency;
  const radius = Number(query.radius);
  return {
    listingId,
    locale: locale === 'de' ? 'de' : 'en',
    currencyDisplay: display === 'code' || display === 'name' ? display : 'symbol',
    ...(query.color && COLOR.test(query.color) ? { color: query.color } : {}),
    ...(query.font && FONT.test(query.font) ? { font: query.font } : {}),
    ...(query.radius !== undefined && query.radius !== '' && Number.isInteger(radius) && radius >= 0 && radius <= 24 ? { radius } : {}),
  };
}
