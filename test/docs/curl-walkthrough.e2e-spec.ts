import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { ROOT } from '../utils/service-process';

const GUIDE = path.join(ROOT, 'docs/integrating-the-checkout.md');

/** The guide's curl block, as a newcomer would copy it. */
function documentedWalkthrough(): string {
  const block = /```sh\n(# checkout walkthrough[\s\S]*?)```/.exec(readFileSync(GUIDE, 'utf8'));
  if (!block) throw new Error('docs/integrating-the-checkout.md has no "# checkout walkthrough" sh block');
  return block[1];
}

/**
 * A newcomer scripts calendar → quote → booking → card → payment-status with curl from
 * docs/integrating-the-checkout.md alone: the documented block runs, unchanged, against a service on
 * the sandbox, and books and pays a stay.
 */
describe('the curl walkthrough of docs/integrating-the-checkout.md', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        PAYMENT_STATUS_REFRESH_SECONDS: '1',
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        UPSTREAM_ANONYMOUS_SHARE: '100',
      },
      sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: 200 },
    });
  });

  afterAll(() => world.close());

  it('books and pays a stay, ending with a paid payment-status', async () => {
    // Asynchronous: the service the script calls runs in this process.
    const printed = await new Promise<string>((resolve, reject) => {
      execFile(
        'bash',
        ['-c', documentedWalkthrough()],
        { env: { ...process.env, BASE: world.apps[0].url }, timeout: 120_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
      );
    });
    const lines = printed
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ available: true, currency: 'USD' });
    expect(lines.find((line) => 'plans' in line)).toMatchObject({ nights: 3, currency: 'USD' });
    expect(lines.find((line) => 'booking' in line && typeof line.booking === 'object')).toMatchObject({
      status: 'requires_payment_method',
      booking: { status: 'reserved' },
    });
    expect(lines.find((line) => 'paymentMethod' in line)).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(lines.at(-1)).toEqual({
      state: 'paid',
      amountPaid: expect.any(Number),
      amountDue: 0,
      message: 'Your booking is paid. Nothing more to do.',
    });
    const session = lines.find((line) => 'booking' in line && typeof line.booking === 'object') as { booking: { reservationId: string } };
    expect(world.sandbox.control.getReservation(session.booking.reservationId)).toMatchObject({ status: 'confirmed' });
  });
});
