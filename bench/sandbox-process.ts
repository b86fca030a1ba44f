/*
 * The sandbox in a process of its own for the benchmark, steered over IPC: the bench asks it for
 * fresh reservations and for the Open API calls it has seen, so the simulator's CPU time is not
 * the load generator's or the service's.
 */
import { startSandbox } from '../sandbox/start-sandbox';
import { CreateReservationInput, SandboxOptions } from '../sandbox/types';

export type SandboxRequest =
  | { id: number; op: 'createReservation'; input: CreateReservationInput }
  | { id: number; op: 'openApiCalls' }
  | { id: number; op: 'setWebhookTarget'; url?: string }
  | { id: number; op: 'webhooksSettled' };

async function main(): Promise<void> {
  const options = JSON.parse(process.env.BENCH_SANDBOX_OPTIONS ?? '{}') as SandboxOptions;
  const sandbox = await startSandbox(options);
  process.on('message', (message: SandboxRequest) => {
    void (async () => {
      let result: unknown;
      if (message.op === 'createReservation') result = sandbox.control.createReservation(message.input);
      else if (message.op === 'setWebhookTarget') sandbox.control.setWebhookTarget(message.url);
      else if (message.op === 'webhooksSettled') await sandbox.control.webhooksSettled();
      else result = sandbox.control.requestLog.filter((entry) => entry.route !== 'token' && entry.route !== 'tokenize').length;
      process.send?.({ id: message.id, result });
    })();
  });
  process.once('disconnect', () => void sandbox.stop().then(() => process.exit(0)));
  process.send?.({ ready: sandbox.urls });
}

void main();
