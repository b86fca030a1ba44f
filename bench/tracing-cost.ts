import { spawn } from 'node:child_process';
import { benchKeyPrefix, benchRedisUrl, deleteKeys } from './bench-world';
import { printTable } from './cold-start';
import { alternatingLoads, median } from './process-figures';
import { freePort, startServiceProcess, waitForOk } from './processes';

/**
 * Scenario 8 — what tracing costs: the same cached listing summary read on two instances of the
 * built service (sandbox mode, real Redis), one without OTEL_* variables (no SDK loaded) and one
 * exporting every span over OTLP to a collector that accepts and drops them. Loaded in turns, medians compared.
 */
export async function tracingCost(options: { seconds: number; rounds: number }): Promise<void> {
  const redisUrl = benchRedisUrl();
  const prefix = benchKeyPrefix();
  const collectorPort = await freePort();
  const collector = spawn(
    process.execPath,
    ['-e', `require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.end())}).listen(${collectorPort},'127.0.0.1')`],
    { stdio: 'ignore' },
  );
  const env = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, CHECKOUT_IP_READ_LIMIT: '1000000/s' };
  const off = await startServiceProcess(env);
  const on = await startServiceProcess({
    ...env,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
  });
  try {
    const offUrl = `${off.url}/checkout/listings/lst-seaside`;
    const onUrl = `${on.url}/checkout/listings/lst-seaside`;
    await waitForOk(offUrl, 10_000);
    await waitForOk(onUrl, 10_000);
    const [untraced, traced] = await alternatingLoads([offUrl, onUrl], options);
    const offRate = median(untraced.map((load) => load.requestsPerSecond));
    const onRate = median(traced.map((load) => load.requestsPerSecond));
    printTable(`8. tracing off vs on, cached listing summary (median of ${options.rounds} alternating ${options.seconds} s runs)`, [
      ['tracing off (no OTEL_*): requests/s, p99', `${offRate.toFixed(0)}, ${median(untraced.map((load) => load.p99))} ms`],
      ['tracing on (every span exported over OTLP): requests/s, p99', `${onRate.toFixed(0)}, ${median(traced.map((load) => load.p99))} ms`],
      ['on / off', `${((100 * onRate) / offRate).toFixed(0)} %`],
    ]);
  } finally {
    await off.stop();
    await on.stop();
    collector.kill('SIGTERM');
    await deleteKeys(redisUrl, prefix);
  }
}
