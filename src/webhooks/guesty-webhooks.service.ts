import { Inject, Injectable, Logger } from '@nestjs/common';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { DomainError } from '../common/errors/domain-error';
import { ProductEventBus } from '../common/events/product-event-bus';
import { MetricsService } from '../metrics/metrics.service';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';

/** A message id is handled once for this long, across replicas (docs/product-spec.md §4). */
const HANDLED_TTL_MS = 24 * 3_600_000;
const RESERVATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type WebhookOutcome = 'accepted' | 'duplicate' | 'ignored';

interface WebhookBody {
  event?: unknown;
  /** Where some deliveries of the v2 reservation events name the event (docs/upstream.md, "Webhooks of today"). */
  eventType?: unknown;
  payment?: { reservationId?: unknown };
  reservation?: { _id?: unknown; id?: unknown; listingId?: unknown };
  /** v2 reservation events and the folio events: their object under `data`, in either of the published readings. */
  data?: {
    reservation?: { id?: unknown; _id?: unknown; listingId?: unknown; unitTypeId?: unknown };
    reservationId?: unknown;
    listingId?: unknown;
    unitTypeId?: unknown;
  };
  reservationId?: unknown;
  listingId?: unknown;
  /** calendar.updated.v2 (docs/upstream-reference/examples/calendar-updated-v2.json). */
  dateRange?: { start?: unknown; end?: unknown };
  /** listing.calendar.updated (docs/upstream-reference/examples/listing-calendar-updated.json). */
  calendar?: unknown;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CALENDAR_V2 = 'calendar.updated.v2';

const EVENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The event a delivery is: the `event` (or `eventType`) it names, or, for the platform's
 * calendar.updated.v2 (whose published example has no `event` field), its shape: a listing and a date range.
 */
function eventOf(body: WebhookBody): string {
  for (const named of [body.event, body.eventType]) if (typeof named === 'string' && EVENT_NAME.test(named)) return named;
  return idOf(body.listingId) && typeof body.dateRange === 'object' && body.dateRange !== null ? CALENDAR_V2 : 'unknown';
}

/** The listing days a calendar webhook names, from its date range (v2) or its changed days (legacy). */
function calendarChanges(body: WebhookBody): { listingId: string; dates: { from: string; to: string } }[] {
  const start = body.dateRange?.start;
  const end = body.dateRange?.end;
  const listingId = idOf(body.listingId);
  if (listingId && typeof start === 'string' && typeof end === 'string' && DATE.test(start) && DATE.test(end) && start <= end) {
    return [{ listingId, dates: { from: start, to: end } }];
  }
  const byListing = new Map<string, { from: string; to: string }>();
  for (const day of Array.isArray(body.calendar) ? (body.calendar as { listingId?: unknown; date?: unknown }[]) : []) {
    const id = idOf(day?.listingId);
    if (!id || typeof day.date !== 'string' || !DATE.test(day.date)) continue;
    const seen = byListing.get(id);
    byListing.set(
      id,
      seen
        ? { from: day.date < seen.from ? day.date : seen.from, to: day.date > seen.to ? day.date : seen.to }
        : { from: day.date, to: day.date },
    );
  }
  return [...byListing].map(([id, dates]) => ({ listingId: id, dates }));
}

function idOf(value: unknown): string | undefined {
  return typeof value === 'string' && RESERVATION_ID.test(value) ? value : undefined;
}

/**
 * The reservation a delivery names, wherever the platform's events put it: the payments events'
 * `payment.reservationId`, the v2 events' `data.reservation.id` or `data.reservationId`, the folio
 * events' `reservationId`, the legacy events' `reservation._id`. Only a hint: what it names is re-read.
 */
function reservationNamed(body: WebhookBody): string | undefined {
  return (
    idOf(body.payment?.reservationId) ??
    idOf(body.data?.reservation?.id) ??
    idOf(body.data?.reservation?._id) ??
    idOf(body.data?.reservationId) ??
    idOf(body.reservationId) ??
    idOf(body.reservation?._id) ??
    idOf(body.reservation?.id)
  );
}

function listingNamed(body: WebhookBody): string | undefined {
  return (
    idOf(body.reservation?.listingId) ??
    idOf(body.data?.reservation?.listingId) ??
    idOf(body.data?.reservation?.unitTypeId) ??
    idOf(body.data?.listingId) ??
    idOf(body.data?.unitTypeId) ??
    idOf(body.listingId)
  );
}

/**
 * The platform's webhooks (Svix scheme, whose `svix-*` headers carry the `webhook-*` values),
 * verified on the raw body by the maintained Standard Webhooks library. A verified event is only a
 * hint, its payload never taken as fact: payments.* and guest-folio.* are published as
 * `payments.changed` (payment-status drops what it served), reservation.* and calendar events as
 * `reservation.changed`.
 */
@Injectable()
export class GuestyWebhooksService {
  private readonly logger = new Logger('GuestyWebhooks');

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly events: ProductEventBus,
    private readonly metrics: MetricsService,
  ) {}

  async receive(secret: string, rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<WebhookOutcome> {
    const header = (name: string) => {
      const value = headers[`webhook-${name}`] ?? headers[`svix-${name}`];
      return Array.isArray(value) ? value[0] : value;
    };
    const signed = {
      'webhook-id': header('id') ?? '',
      'webhook-timestamp': header('timestamp') ?? '',
      'webhook-signature': header('signature') ?? '',
    };
    let body: WebhookBody;
    try {
      body = new Webhook(secret).verify(rawBody.toString('utf8'), signed) as WebhookBody;
    } catch (error) {
      this.metrics.webhookEvents.inc({ type: 'unknown', outcome: 'bad_signature' });
      const why = error instanceof WebhookVerificationError ? error.message : 'unreadable';
      this.logger.warn({ reason: why }, 'webhook refused: signature missing, bad or stale');
      throw new DomainError('unauthorized', 'The webhook signature is missing, does not verify, or is too old.');
    }
    // Signed is not well formed: a body that is no JSON object names no event (a 400, never a 500).
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      this.metrics.webhookEvents.inc({ type: 'unknown', outcome: 'malformed' });
      throw DomainError.validation([], 'A webhook body is a JSON object.');
    }
    const type = eventOf(body);
    const claimed = await this.store
      .set(this.keys.webhookMessage(signed['webhook-id']), '1', { ifAbsent: true, ttlMs: HANDLED_TTL_MS })
      .catch((cause: unknown) => {
        throw DomainError.storeUnavailable(cause);
      });
    if (!claimed) {
      this.metrics.webhookEvents.inc({ type, outcome: 'duplicate' });
      return 'duplicate';
    }
    const outcome = await this.handle(type, body);
    this.metrics.webhookEvents.inc({ type, outcome });
    return outcome;
  }

  private async handle(type: string, body: WebhookBody): Promise<WebhookOutcome> {
    // A folio's totals changed (coalesced within 30 s, out of order): its balance is re-read, as after a payment.
    if (type.startsWith('payments.') || type.startsWith('guest-folio.')) {
      const reservationId = reservationNamed(body);
      if (!reservationId) return 'ignored';
      await this.events.publish('payments.changed', { type, reservationId });
      return 'accepted';
    }
    if (type.startsWith('calendar.') || type.startsWith('listing.calendar')) {
      const changes = calendarChanges(body);
      // A calendar webhook without readable dates drops the listing's months from now on.
      const named = changes.length > 0 ? changes : idOf(body.listingId) ? [{ listingId: idOf(body.listingId)! }] : [];
      if (named.length === 0) return 'ignored';
      await Promise.all(named.map((change) => this.events.publish('reservation.changed', { type, ...change })));
      return 'accepted';
    }
    if (type.startsWith('reservation.')) {
      await this.events.publish('reservation.changed', { type, reservationId: reservationNamed(body), listingId: listingNamed(body) });
      return 'accepted';
    }
    return 'ignored';
  }
}
