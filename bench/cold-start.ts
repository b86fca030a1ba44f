import { busiestWindow, percentile, startBenchWorld, timed } from './bench-world';

const LISTINGS = ['lst-seaside', 'lst-city', 'lst-mountain'];

/**
 * Scenario 1 — cold start: every instance starts with no token and no cache, and each receives
 * `concurrency` requests at once that need the upstream (listing summaries of three listings).
 */
export async function coldStart(options: { instances: number; concurrency: number }): Promise<void> {
  // One client address sends every request here: the per-IP read limit is not what this measures.
  const world = await startBenchWorld(options.instances, { env: { CHECKOUT_IP_READ_LIMIT: '100000/m' } });
  try {
    const started = performance.now();
    const results = await Promise.all(
      world.instances.flatMap((instance) =>
        Array.from({ length: options.concurrency }, (_, i) => timed(`${instance.url}/checkout/listings/${LISTINGS[i % LISTINGS.length]}`)),
      ),
    );
    const wallMs = performance.now() - started;
    const latencies = results.map((result) => result.ms).sort((a, b) => a - b);
    const { counters, requestLog } = world.sandbox.control;
    const openApi = requestLog.filter((entry) => entry.route !== 'token');
    const rows: [string, string][] = [
      ['instances × concurrent requests', `${options.instances} × ${options.concurrency}`],
      ['answers 200 / other', `${results.filter((r) => r.status === 200).length} / ${results.filter((r) => r.status !== 200).length}`],
      ['tokens minted', String(counters.tokensMinted)],
      ['upstream calls (Open API)', String(openApi.length)],
      [
        'busiest 1 s / 60 s window',
        `${busiestWindow(
          openApi.map((e) => e.time),
          1000,
        )} / ${busiestWindow(
          openApi.map((e) => e.time),
          60_000,
        )}`,
      ],
      ['429s received', String(counters.rateLimited)],
      ['latency p50 / p99 (ms)', `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)}`],
      ['wall time (ms)', wallMs.toFixed(0)],
    ];
    printTable('1. cold start', rows);
  } finally {
    await world.close();
  }
}

export function printTable(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([name]) => name.length));
  process.stdout.write(`${title}\n${rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`).join('\n')}\n\n`);
}
