import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { upstreamRequests } from '../utils/checkout-client';
import { SandboxedApps } from '../utils/sandboxed-apps';

export const ADMIN_KEY = 'operator-key-for-tests-0123456789';

export interface SandboxItem {
  _id: string;
  title: string;
  amount: number;
  normalType: string;
  secondIdentifier?: string;
  description?: string;
  realizationDates?: { date: string }[];
}

/** The operator's side: POST /admin/reservations/:id/invoice-items with the key, against one replica. */
export function adminClient(url: string) {
  return {
    addItem: (reservationId: string, body: unknown, options: { key?: string; authorization?: string | null } = {}) => {
      const call = request(url)
        .post(`/admin/reservations/${reservationId}/invoice-items`)
        .set('Idempotency-Key', options.key ?? randomUUID());
      if (options.authorization !== null) void call.set('Authorization', options.authorization ?? `Bearer ${ADMIN_KEY}`);
      return call.send(body as object);
    },
  };
}

export function invoiceItemsAt(world: SandboxedApps, reservationId: string): SandboxItem[] {
  const reservation = world.sandbox.control.getReservation(reservationId) as { money: { invoiceItems: SandboxItem[] } };
  return reservation.money.invoiceItems;
}

export function writesAt(world: SandboxedApps): { current: number; deprecated: number } {
  const { requests } = world.sandbox.control.counters;
  return { current: requests.invoiceItems ?? 0, deprecated: requests.invoiceItemsDeprecated ?? 0 };
}

/**
 * What a refused request must leave as it was: every upstream request, the reservation's items and
 * the Redis key space (keys may expire meanwhile, none may appear).
 */
export async function untouched(world: SandboxedApps, reservationId: string) {
  const upstream = upstreamRequests(world);
  const items = invoiceItemsAt(world, reservationId);
  const keys = await world.apps[0].redisKeys();
  return {
    async verify(): Promise<void> {
      expect(upstreamRequests(world)).toBe(upstream);
      expect(invoiceItemsAt(world, reservationId)).toEqual(items);
      // A wrong operator key is counted for its network (the only record a refusal may write), within the anonymous records' count.
      const counted = (key: string) => key.includes('{limit:admin-keys:') || key.endsWith(':anonymous-records');
      expect((await world.apps[0].redisKeys()).filter((key) => !keys.includes(key) && !counted(key))).toEqual([]);
    },
  };
}

/** The answer of an unknown route, without its request id, to compare a hidden route against. */
export function withoutRequestId(body: Record<string, unknown>): Record<string, unknown> {
  const { requestId: _requestId, ...rest } = body;
  return rest;
}
