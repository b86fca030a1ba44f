/**
 * The sandbox in its own process, over IPC: the platform counts a request on arrival, so a test
 * judging the outbound budget must not share a loop with the service, whose stalls bunch arrivals.
 * Options: JSON in argv[2]. `{id, member, args}` → `{id, value | error}`; `{violation}` before a
 * refusal's answer; `{id, barrier: true}` → `{id}` once earlier messages left.
 */
import { forwardViolations } from './open-api/contract-violations';
import { startSandbox } from './start-sandbox';
import type { SandboxControl, SandboxOptions } from './types';

interface ControlRequest {
  id: number;
  member?: keyof SandboxControl;
  args?: unknown[];
  barrier?: true;
}

async function main(): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('own-process sandbox: start it with child_process.fork');
  forwardViolations((violation) => send({ violation }));
  const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
  const sandbox = await startSandbox(options);
  process.on('message', (message: ControlRequest) => {
    // The channel keeps order: this answer follows every violation sent before it.
    if (message.barrier || message.member === undefined) {
      send({ id: message.id });
      return;
    }
    const refused = (error: unknown) => send({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    try {
      const member = sandbox.control[message.member] as unknown;
      const value =
        typeof member === 'function' ? (member as (...args: unknown[]) => unknown).apply(sandbox.control, message.args ?? []) : member;
      // A member that answers later (webhooksSettled) is answered once it has.
      Promise.resolve(value).then((settled) => send({ id: message.id, value: settled }), refused);
    } catch (error) {
      refused(error);
    }
  });
  // The parent gone (test ended or crashed): nothing is left behind.
  process.once('disconnect', () => {
    void sandbox.stop().finally(() => process.exit(0));
  });
  send({ ready: sandbox.urls });
}

main().catch((error: unknown) => {
  process.stderr.write(`Sandbox failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
