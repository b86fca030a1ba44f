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
  /** A colour for buttons and the chosen days, `#rgb` or `#rrggbb`, dark enough for their white text. */
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
    ...(query.color && COLOR.test(query.color) && readableUnderWhite(query.color) ? { color: query.color } : {}),
    ...(query.font && FONT.test(query.font) ? { font: query.font } : {}),
    ...(query.radius !== undefined && query.radius !== '' && Number.isInteger(radius) && radius >= 0 && radius <= 24 ? { radius } : {}),
  };
}

/** WCAG 2's contrast of white text on the colour: at least 4.5:1, or the default colour stays. */
function readableUnderWhite(color: string): boolean {
  const hex = color.length === 4 ? color.slice(1).replace(/./g, (digit) => digit + digit) : color.slice(1);
  const [red, green, blue] = [0, 2, 4].map((at) => {
    const channel = parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue;
  return 1.05 / (luminance + 0.05) >= 4.5;
}
