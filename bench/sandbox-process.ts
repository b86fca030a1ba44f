/*
 * The sandbox in a process of its own for the benchmark, steered over IPC: the bench asks it for
 * fresh reservations and for the Open API calls it has seen, so the simulator's CPU time is not
 * the load generator's or the service's.
 */
import { startSandbox } from '../sandbox/start-sandbox';
import { CreateReservationInput, SandboxOptions } from '../sandbox/types';

export type SandboxRequest = { id: number; op: 'createReservation'; input: CreateReservationInput } | { id: number; op: 'openApiCalls' };

async function main(): Promise<void> {
  const options = JSON.parse(process.env.BENCH_SANDBOX_OPTIONS ?? '{}') as SandboxOptions;
  const sandbox = await startSandbox(options);
  process.on('message', (message: SandboxRequest) => {
    const result =
      message.op === 'createReservation'
        ? sandbox.control.createReservation(message.input)
        : sandbox.control.requestLog.filter((entry) => entry.route !== 'token' && entry.route !== 'tokenize').length;
    process.send?.({ id: message.id, result });
  });
  process.once('disconnect', () => void sandbox.stop().then(() => process.exit(0)));
  process.send?.({ ready: sandbox.urls });
}

void main();
