import { SandboxedApps } from './sandboxed-apps';
import { waitUntil } from './redis-server';

type PaymentStatus = 'SUCCEEDED' | 'FAILED' | 'PENDING_AUTH';

/** The reservation's payments as the sandbox holds them now (invisible ones included). */
export function sandboxPayments(world: SandboxedApps, reservationId: string): { _id: string; status: string; amount: number }[] {
  const money = world.sandbox.control.getReservation(reservationId, { settled: true })?.money as
    { payments?: { _id: string; status: string; amount: number }[] } | undefined;
  return money?.payments ?? [];
}

/**
 * The platform charges what an attach scheduled a moment later (docs/sandbox.md): move the sandbox's
 * clock past that moment (`advanceMs`, its visibility and settle delays) and wait, bounded, until a
 * payment of the reservation shows `status`.
 */
export async function awaitCharge(world: SandboxedApps, reservationId: string, status: PaymentStatus, advanceMs = 0): Promise<void> {
  if (advanceMs > 0) world.sandbox.control.advanceClock(advanceMs);
  await waitUntil(
    () => Promise.resolve(sandboxPayments(world, reservationId).some((payment) => payment.status === status)),
    5_000,
    `a ${status} payment on ${reservationId}`,
  );
}
