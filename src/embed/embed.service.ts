import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../config/app-config';
import { EmbedAsset, EmbedAssets, EmbedFile } from './embed-assets';
import { EmbedOptions, embedOptions } from './embed-options';

/** The files the frame loads by name: its page and the host's script have routes of their own. */
const FRAME_FILES: ReadonlySet<EmbedFile> = new Set(['frame.js', 'frame.css', 'frame-words.js', 'checkout-client.js', 'returned.js']);

export interface FramePage {
  status: 200 | 400 | 403;
  html: string;
  contentSecurityPolicy: string;
}

/**
 * The drop-in checkout (docs/product-spec.md §3.4): the script a site adds, the page it frames,
 * and who may frame it. The card fields live on this page, on the service's origin: the site
 * never sees a card number.
 */
@Injectable()
export class EmbedService implements OnModuleDestroy {
  private readonly assets: EmbedAssets;
  private readonly origins: ReadonlySet<string>;
  /** The page's policy but for frame-ancestors, which names the one site the page is for. */
  private readonly policy: string[];
  /** The platform's payment-form SDK, when the card is taken by it (CARD_COLLECTION=sdk). */
  private readonly sdkScript?: string;

  constructor(@Inject(ConfigService) config: ConfigService<AppConfig, true>) {
    // Outside production an edited file is served on the next load (start:dev): the folder is watched.
    this.assets = new EmbedAssets(undefined, { watch: !config.get('runtime', { infer: true }).production });
    const origins = config.get('http', { infer: true }).embedOrigins;
    this.origins = new Set(origins);
    // The SDK's script must come from the pay host, never bundled (docs/upstream.md, "The payment-form SDK").
    if (config.get('checkout', { infer: true }).cardCollection === 'sdk') {
      this.sdkScript = new URL('/tokenization/v2/init.js', config.get('guesty', { infer: true }).payUrl).href;
    }
    // The page talks to this service alone (and, with the SDK, to the pay host that renders the card
    // fields in a frame of its own); only the listed sites may frame it (none: nobody).
    const payHost = this.sdkScript ? ` ${new URL(this.sdkScript).origin}` : '';
    this.policy = [
      "default-src 'none'",
      `script-src 'self'${payHost}`,
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src 'self'${payHost}`,
      ...(payHost ? [`frame-src${payHost}`] : []),
      "form-action 'self'",
      "base-uri 'none'",
    ];
  }

  onModuleDestroy(): void {
    this.assets.close();
  }

  /** Whether a site's origin may embed the checkout (exact match, as CORS). */
  allows(origin: string | undefined): boolean {
    return origin !== undefined && this.origins.has(origin);
  }

  script(): EmbedAsset {
    return this.assets.read('embed.js');
  }

  /** Where the bank's window of a checkout ends (a site's CHECKOUT_RETURN_URL): it closes itself. */
  returned(): string {
    return this.assets.read('returned.html').text;
  }

  /** One of the frame's files, or null for any other name. */
  frameFile(name: string): EmbedAsset | null {
    return this.assets.isFile(name) && FRAME_FILES.has(name) ? this.assets.read(name) : null;
  }

  /** The checkout page for a listing, framed by `host`: refused, and said why, unless the host is listed and the listing well formed. */
  frame(query: Record<string, string | undefined>): FramePage {
    // Only the site the page was asked for may frame it; a refusal may be framed by none.
    const allowed = this.allows(query.host);
    const ancestors = allowed ? query.host! : "'none'";
    const answer = (status: FramePage['status'], html: string): FramePage => ({
      status,
      html,
      contentSecurityPolicy: [...this.policy, `frame-ancestors ${ancestors}`].join('; '),
    });
    if (!allowed) {
      return answer(
        403,
        refusal('This site may not show the booking checkout. Its owner can allow it in the checkout service (EMBED_ORIGINS).'),
      );
    }
    const options = embedOptions(query);
    if (!options) return answer(400, refusal('The booking checkout needs the listing it sells (data-listing-id).'));
    return answer(200, this.assets.read('frame.html').text.replace('{{options}}', attributes(query.host!, options, this.sdkScript)));
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The page's settings as data attributes of its root element: the page's script reads them there (no inline script). */
function attributes(host: string, options: EmbedOptions, sdkScript: string | undefined): string {
  const values: Record<string, string | number | undefined> = {
    'data-sdk-script': sdkScript,
    'data-host': host,
    'data-listing': options.listingId,
    'data-currency-display': options.currencyDisplay,
    'data-color': options.color,
    'data-font': options.font,
    'data-radius': options.radius,
    lang: options.locale,
  };
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}="${escapeHtml(String(value))}"`)
    .join(' ');
}

function refusal(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Booking checkout</title></head><body><p>${escapeHtml(message)}</p></body></html>`;
}
