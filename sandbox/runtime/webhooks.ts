/**
 * The platform's webhooks, signed as it signs them (Svix scheme: svix-id, svix-timestamp,
 * svix-signature `v1,<base64 HMAC-SHA256 of id.timestamp.body>` under a `whsec_` secret), sent to
 * the service the sandbox runs beside (docs/product-spec.md §5). Signing uses the maintained
 * Standard Webhooks library, the same scheme the service verifies with.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export interface WebhookDelivery {
  id: string;
  type: string;
  status: number;
  /** The sandbox clock when it was sent. */
  time: number;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * A world's service subscribed to the sandbox's webhooks, or not (`subscribed` false): the secret
 * the sandbox signs with and the service's variable for it, and where a service at `serviceUrl`
 * takes them (undefined: none are sent).
 */
export function webhookSubscription(subscribed: boolean): {
  sandbox: { webhookSecret?: string };
  env: Record<string, string>;
  target(serviceUrl: string): string | undefined;
} {
  const secret = subscribed ? newWebhookSecret() : undefined;
  return {
    sandbox: secret ? { webhookSecret: secret } : {},
    env: secret ? { GUESTY_WEBHOOK_SECRET: secret } : {},
    target: (serviceUrl) => (secret ? `${serviceUrl}/webhooks/guesty` : undefined),
  };
}

/** Headers of one signed delivery; tests use it to forge stale or replayed ones. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body);
  return {
    'content-type': 'application/json',
    'svix-id': id,
    'svix-timestamp': String(timestampSeconds),
    'svix-signature': signature,
  };
}

export class WebhookSender {
  target: string | undefined;
  readonly deliveries: WebhookDelivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly secret: string,
    private readonly clock: () => number,
  ) {}

  /**
   * Fire and forget, as the platform: a refused delivery is recorded, never retried here. The body
   * names its event at `eventField` (`event` unless told), or nowhere (`none`: calendar.updated.v2's
   * published example has no name).
   */
  send(type: string, data: Record<string, unknown>, options: { eventField?: 'event' | 'eventType' | 'none' } = {}): void {
    const target = this.target;
    if (target === undefined) return;
    const id = `msg_${randomBytes(12).toString('hex')}`;
    const now = this.clock();
    const field = options.eventField ?? 'event';
    const body = JSON.stringify(field === 'none' ? data : { [field]: type, ...data });
    const headers = signWebhook(this.secret, id, Math.floor(now / 1000), body);
    // Listed in the order sent (0 until answered), so a test reads what one change sent in order.
    const sent: WebhookDelivery = { id, type, status: 0, time: now };
    this.deliveries.push(sent);
    const delivery = fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(5_000) })
      .then((answer) => {
        sent.status = answer.status;
      })
      .catch(() => undefined)
      .finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  /** Resolves once every delivery sent so far was answered (or failed). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
