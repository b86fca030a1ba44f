/*
 * `npm run bench`: figures, not a test. Runs the scenarios against the sandbox with several
 * instances on one real Redis (REDIS_URL or 127.0.0.1:6379) and prints a table per scenario.
 * Scenarios 1 and 2 count calls in this process; 3 to 5 measure time, so instances and sandbox get
 * processes of their own. docs/benchmarks.md lists every scenario and its options.
 */
import { anonymousFlood } from './anonymous-flood';
import { bookings } from './bookings';
import { boundedFlood } from './bounded-flood';
import { budgetFigures } from './budget-figures';
import { checkouts, guestWaits } from './checkouts';
import { coldStart } from './cold-start';
import { overload } from './overload';
import { processFigures } from './process-figures';
import { tracingCost } from './tracing-cost';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const number = (flag: string, fallback: number) => {
    const index = args.indexOf(flag);
    return index >= 0 ? Number(args[index + 1]) : fallback;
  };
  process.stdout.write(`booking checkout service benchmark — node ${process.version}, ${new Date().toISOString()}\n\n`);
  const instances = number('--instances', 3);
  // --only N runs scenario N alone (e.g. to compare two commits on one figure); --only 3,4,7 those, in one run.
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? args[onlyIndex + 1].split(',').map(Number) : [];
  const runs = (scenario: number) => only.length === 0 || only.includes(scenario);
  if (runs(1)) await coldStart({ instances, concurrency: number('--concurrency', 300) });
  if (runs(2)) await overload({ instances, seconds: number('--overload-seconds', 60) });
  if (runs(3)) await checkouts({ instances, concurrency: number('--checkouts', 50), rounds: number('--rounds', 10) });
  if (runs(4) || runs(5)) await processFigures({ seconds: number('--load-seconds', 5), rounds: number('--load-rounds', 7) });
  if (runs(6)) await anonymousFlood({ instances, seconds: number('--flood-seconds', 60) });
  if (runs(7))
    await bookings({ bookings: number('--bookings', 10), seconds: number('--load-seconds', 5), rounds: number('--load-rounds', 7) });
  if (runs(8)) await tracingCost({ seconds: number('--load-seconds', 5), rounds: number('--load-rounds', 7) });
  if (runs(9)) await budgetFigures({ instances });
  if (runs(10)) await boundedFlood({ instances, seconds: number('--bounded-seconds', 60) });
  if (runs(11)) await boundedFlood({ instances, seconds: number('--bounded-seconds', 60), webhooks: false });
  if (runs(12)) await guestWaits({ checkouts: number('--waits', 5), latencyMs: number('--latency', 250) });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
