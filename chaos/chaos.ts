/*
 * `npm run chaos -- --operations N --seed S`: a randomized fault campaign against three replicas of
 * the built service, a redis-server of its own and the sandbox. The same seed replays the same
 * schedule; docs/benchmarks.md, "Fault campaign", lists the options that trace, narrow and compare
 * runs. Exits 1 when an invariant was violated.
 */
import path from 'node:path';
import { runCampaign } from './campaign';
import { newSeed } from './random';
import { FAULT_KINDS, OPERATION_KINDS, type OperationKind, type TimelineFaultKind } from './schedule';
import { abandonedLines, campaignTable, violationLines } from './table';
import { startChaosWorld } from './world';

function option(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

function listOption<T extends string>(args: string[], flag: string, known: readonly T[]): T[] | undefined {
  const value = option(args, flag);
  if (value === undefined) return undefined;
  const items = value === 'none' ? [] : value.split(',').filter(Boolean);
  const unknown = items.filter((item) => !known.includes(item as T));
  if (unknown.length > 0) throw new Error(`${flag}: unknown ${unknown.join(', ')}; one of ${known.join(', ')}`);
  return items as T[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const seed = Number(option(args, '--seed') ?? newSeed());
  const operations = Number(option(args, '--operations') ?? 50);
  if (!Number.isInteger(seed) || !Number.isInteger(operations) || operations < 1)
    throw new Error('--seed and --operations are whole numbers');
  process.stdout.write(`chaos campaign — seed ${seed}, ${operations} operations, node ${process.version}, ${new Date().toISOString()}\n`);
  const world = await startChaosWorld({
    mainScript: path.resolve(option(args, '--service') ?? path.join(__dirname, '../src/main.js')),
    logDir: option(args, '--logs'),
  });
  // Interrupted: the replicas and the redis-server are this process's children; they go with it.
  process.once('SIGINT', () => void world.close().then(() => process.exit(130)));
  try {
    const report = await runCampaign(world, {
      seed,
      operations,
      concurrency: Number(option(args, '--concurrency') ?? 3),
      operationKinds: listOption<OperationKind>(args, '--kinds', OPERATION_KINDS),
      faultKinds: listOption<TimelineFaultKind>(args, '--faults', FAULT_KINDS),
      trace: args.includes('--trace') ? (line) => process.stdout.write(`  ${new Date().toISOString().slice(11, 23)} ${line}\n`) : undefined,
    });
    process.stdout.write(`\n${campaignTable(report)}\n\n`);
    if (report.abandoned.length > 0) process.stdout.write(`${abandonedLines(report).join('\n')}\n\n`);
    if (report.violations.length > 0)
      process.stdout.write(
        `${violationLines(report).join('\n')}\n\nreplay: npm run chaos -- --operations ${operations} --seed ${seed} --trace\n`,
      );
    process.exitCode = report.violations.length > 0 ? 1 : 0;
  } finally {
    await world.close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`chaos failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
