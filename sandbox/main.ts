/**
 * `npm run sandbox`: the simulated upstream on its own, for pointing another tool at it.
 * Ports come from the command line only (--port N --pay-port M); 0 or absent picks free ports.
 */
import { describeSandbox } from './fixture-guide';
import { startSandbox } from './start-sandbox';

function portArgument(argv: string[], flag: string): number {
  const index = argv.indexOf(flag);
  if (index < 0) return 0;
  const raw = argv[index + 1] ?? '';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) throw new Error(`${flag} takes a port number from 0 to 65535, got "${raw}"`);
  return port;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sandbox = await startSandbox({
    apiPort: portArgument(argv, '--port'),
    payPort: portArgument(argv, '--pay-port'),
  });
  process.stdout.write(`${describeSandbox(sandbox.urls)}  Details: docs/sandbox.md. Stop with Ctrl+C.\n`);
  const shutdown = () => {
    sandbox.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`Sandbox failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
