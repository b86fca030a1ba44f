import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { ADMIN_KEY } from '../invoices/invoice-test-helpers';
import { cardBody, checkoutClient, freshReservation, upstreamRequests } from '../utils/checkout-client';
import { keysAdded } from '../utils/keys-added';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

type Body = Record<string, unknown>;

/** Every field path a documented body may carry (`guest.phone`, `items.0.code`), read from the document itself. */
function fieldPaths(document: OpenApiDocument, schema: Schema, parent = ''): string[] {
  const resolved = resolve(document, schema);
  if (resolved.type === 'array' && resolved.items) {
    const item = `${parent}.0`;
    return [item, ...fieldPaths(document, resolved.items, item)];
  }
  return Object.entries(resolved.properties ?? {}).flatMap(([name, property]) => {
    const path = parent ? `${parent}.${name}` : name;
    const inner = resolve(document, property);
    return [path, ...(inner.properties || inner.type === 'array' ? fieldPaths(document, inner, path) : [])];
  });
}

function resolve(document: OpenApiDocument, schema: Schema): Schema {
  const ref = schema.$ref ?? schema.allOf?.find((part) => part.$ref)?.$ref;
  return ref ? resolve(document, document.components.schemas[ref.split('/').pop()!]) : schema;
}

/** The body with the field at `path` set to null, or undefined when the body has no place for it (its parent is absent). */
function withNull(body: Body, path: string): Body | undefined {
  const copy = structuredClone(body);
  const steps = path.split('.');
  let node: unknown = copy;
  for (const step of steps.slice(0, -1)) {
    node = (node as Record<string, unknown>)[step];
    if (typeof node !== 'object' || node === null) return undefined;
  }
  (node as Record<string, unknown>)[steps[steps.length - 1]] = null;
  return copy;
}

/**
 * docs/product-spec.md §7: a JSON null where the contract wants a string, a number or an object is a
 * 400 naming the field, on every route with a body: each documented field of each documented body is
 * set to null in turn, and nothing reaches the platform nor Redis.
 */
describe('null in any documented body field: 400 naming the field, nothing sent upstream, nothing written', () => {
  let world: SandboxedApps;
  let document: OpenApiDocument;
  /** Valid bodies per documented route, each shape of it: the null is the only thing wrong. */
  const valid: Record<string, { url: string; bodies: Body[]; headers: Record<string, string> }> = {};

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        CHECKOUT_EXTRAS: JSON.stringify([{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }]),
      },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
    const url = world.apps[0].url;
    document = (await request(url).get('/docs-json').expect(200)).body as OpenApiDocument;
    const reservation = freshReservation(world);
    const site = checkoutClient(url);
    const open = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    const paid = freshReservation(world);
    const paidSession = (await site.createSession(paid.reservationId, paid.guestEmail).expect(201)).body.id as string;
    await site.submit(paidSession, cardBody()).expect(200);
    const quoteRequest = { listingId: 'lst-seaside', ...stay(60, 3), guestsCount: 2, coupon: 'SANDBOX10' };
    const quote = (await bookingClient(url).quote(quoteRequest).expect(201)).body as { id: string; ratePlans: { id: string }[] };
    const item = {
      normalType: 'AFE',
      title: 'Late checkout',
      amount: 40,
      description: 'Check out at 14:00',
      secondIdentifier: 'LATE_CHECKOUT',
      realizationDates: [{ date: '2031-07-14' }],
    };
    const keyed = { 'Idempotency-Key': randomUUID() };
    valid['post /checkout/quotes'] = { url: '/checkout/quotes', bodies: [quoteRequest], headers: {} };
    valid['post /checkout/sessions'] = {
      url: '/checkout/sessions',
      bodies: [
        { reservationId: reservation.reservationId, email: reservation.guestEmail },
        { quoteId: quote.id, ratePlanId: quote.ratePlans[0].id, guest: newGuest({ phone: '+14155550123' }) },
      ],
      headers: keyed,
    };
    valid['post /checkout/sessions/{id}/payment-method'] = {
      url: `/checkout/sessions/${open}/payment-method`,
      bodies: [cardBody(), { token: 'tok_5f2b9c1d' }],
      headers: keyed,
    };
    valid['post /checkout/sessions/{id}/extras'] = {
      url: `/checkout/sessions/${paidSession}/extras`,
      bodies: [{ items: [{ code: 'late-checkout', quantity: 1 }] }],
      headers: keyed,
    };
    valid['post /admin/reservations/{reservationId}/invoice-items'] = {
      url: `/admin/reservations/${paid.reservationId}/invoice-items`,
      bodies: [item],
      headers: { ...keyed, Authorization: `Bearer ${ADMIN_KEY}` },
    };
  });

  afterAll(() => world.close());

  it('has a valid body for every documented request body, and every documented field is set to null by at least one', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody)
        .map(([method]) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual(Object.keys(valid).sort());
    for (const route of documented) {
      const [method, path] = route.split(' ');
      const schema = document.paths[path][method].requestBody!.content['application/json'].schema;
      for (const field of fieldPaths(document, schema)) {
        expect({ route, field, placed: valid[route].bodies.some((body) => withNull(body, field) !== undefined) }).toEqual({
          route,
          field,
          placed: true,
        });
      }
    }
  });

  it('refuses each field set to null with 400 validation_failed naming it', async () => {
    const failures: string[] = [];
    const redis = world.apps[0];
    for (const [route, { url, bodies, headers }] of Object.entries(valid)) {
      const [method, path] = route.split(' ');
      const schema = document.paths[path][method].requestBody!.content['application/json'].schema;
      for (const field of fieldPaths(document, schema)) {
        for (const body of bodies) {
          const sent = withNull(body, field);
          if (!sent) continue;
          const upstream = upstreamRequests(world);
          const keys = await redis.redisKeys();
          const answer = await request(world.apps[0].url).post(url).set(headers).set('Idempotency-Key', randomUUID()).send(sent);
          const named = ((answer.body as { errors?: { field: string }[] }).errors ?? []).map((error) => error.field);
          const newKeys = keysAdded(keys, await redis.redisKeys());
          const sentUpstream = upstreamRequests(world) - upstream;
          if (
            answer.status !== 400 ||
            answer.body.code !== 'validation_failed' ||
            !named.includes(field) ||
            sentUpstream > 0 ||
            newKeys.length > 0
          ) {
            failures.push(
              `${route} ${field}=null in ${JSON.stringify(Object.keys(body))}: ${answer.status} ${answer.body.code} naming [${named.join(', ')}], ${sentUpstream} upstream, ${newKeys.length} new keys`,
            );
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
