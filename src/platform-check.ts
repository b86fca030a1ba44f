import 'reflect-metadata';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { DestinationStream } from 'pino';
import { AuthModule } from './auth/auth.module';
import { Clock, SystemClock } from './primitives/clock';
import { createLogger } from './common/logging/create-logger';
import { PinoLoggerService } from './common/logging/pino-logger.service';
import { AppConfig } from './config/app-config';
import { ConfigurationError, parseConfiguration } from './config/parse-configuration';
import { MetricsModule } from './metrics/metrics.module';
import { bookAndCancel, testCard, WriteStep } from './platform-check-write';
import { RedisModule } from './redis/redis.module';
import { CheckedOperation, ReadCheckReport } from './upstream/platform-check/check-report';
import { PlatformCheck } from './upstream/platform-check/platform-check';
import { PlatformCheckModule } from './upstream/platform-check/platform-check.module';

const USAGE = `npm run platform:check -- --reservation <id> [--json] [--write --listing <id>] [--verbose]

  --reservation <id>   any existing reservation of the account: every read the product makes is sent once and judged
  --write              also book and cancel on a test listing (the platform must mark it isTest)
  --listing <id>       the test listing --write books on
  --json               print {"ok", "operations"} as JSON
  --verbose            the service's log lines on stderr

Runs with the service's environment (credentials, REDIS_URL: the service's shared token is used, none minted while one is held).
Exit 0 only when every operation of the configured surface is confirmed.`;

/** Only the floor the reads need: configuration, the store (the shared token), metrics, the upstream client and its token. */
@Global()
@Module({})
class CheckContext {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CheckContext,
      global: true,
      exports: [Clock],
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, skipProcessEnv: true, load: [() => ({ ...config })] }),
        RedisModule,
        MetricsModule,
        AuthModule,
        PlatformCheckModule,
      ],
      providers: [{ provide: Clock, useValue: new SystemClock() }],
    };
  }
}

/** The reads' context on the service's own modules (a test opens it in-process to run many readings on one token). */
export async function openCheck(
  config: AppConfig,
  logDestination: DestinationStream,
): Promise<{ check: PlatformCheck; close: () => Promise<void> }> {
  const context = await NestFactory.createApplicationContext(CheckContext.register(config), {
    logger: new PinoLoggerService(createLogger(config.logging, logDestination)),
    abortOnError: false,
  });
  return { check: context.get(PlatformCheck), close: () => context.close() };
}

class UsageError extends Error {}

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      reservation: { type: 'string' },
      listing: { type: 'string' },
      write: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return { ...values, help: true };
  if (!values.reservation && !values.write)
    throw new UsageError('--reservation <id> is required (any existing reservation of the account)');
  if (values.write && !values.listing) throw new UsageError('--write needs --listing <id>, a listing the platform marks isTest');
  return values;
}

/** Log lines go nowhere unless asked for: the report is the output. */
function logSink(verbose: boolean): DestinationStream {
  if (verbose) return process.stderr;
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

function textLine(operation: Omit<CheckedOperation, 'resource' | 'surface' | 'configured'> & { configured?: boolean }): string {
  const counted = operation.configured === false ? ' (not configured: reported only)' : '';
  return [
    `${operation.verdict.toUpperCase().padEnd(12)} ${operation.operation}${counted}`,
    `  path:     ${operation.path}`,
    `  expected: ${operation.expected}`,
    `  found:    ${operation.found}`,
    ...(operation.note ? [`  note:     ${operation.note}`] : []),
    `  product:  ${operation.productWill}`,
  ].join('\n');
}

function printText(read: ReadCheckReport | undefined, writes: WriteStep[] | undefined, ok: boolean): void {
  const out: string[] = [];
  if (read) {
    out.push('Reads', ...read.operations.map(textLine), '', 'Choose');
    for (const choice of read.choices) out.push(`  ${choice.variable}=${choice.choose ?? '(neither)'}: ${choice.why}`);
    out.push('', `Open API calls: ${read.calls} (at most 15)`);
  }
  if (writes) out.push('', 'Writes (test listing)', ...writes.map(textLine));
  out.push('', ok ? 'OK: every operation of the configured surface is confirmed' : 'NOT OK: see the operations above');
  process.stdout.write(`${out.join('\n')}\n`);
}

async function run(argv: string[]): Promise<number> {
  const args = options(argv);
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = parseConfiguration(process.env);
  if (config.runtime.sandbox) {
    throw new UsageError('platform:check runs against the account: set GUESTY_CLIENT_ID and GUESTY_CLIENT_SECRET (SANDBOX is on)');
  }
  const card = args.write ? testCard(process.env.PLATFORM_CHECK_CARD) : undefined;
  if (!config.redis.url)
    process.stderr.write(
      'REDIS_URL is not set: the check mints an access token of its own, one of the day’s few; give it the service’s REDIS_URL.\n',
    );
  const sink = logSink(args.verbose);
  const { check, close } = await openCheck(config, sink);
  let read: ReadCheckReport | undefined;
  let testListing: { isTest: boolean; why: string } | undefined;
  try {
    if (args.reservation) read = await check.read(args.reservation);
    if (args.write) testListing = await check.listingIsTest(args.listing!);
  } finally {
    await close();
  }
  if (testListing && !testListing.isTest) {
    process.stderr.write(`Refused: ${testListing.why}. --write books only on a listing the platform marks isTest; nothing was written.\n`);
    if (read) report(read, undefined, args.json);
    return 2;
  }
  const writes = card ? await bookAndCancel(config, args.listing!, card, sink) : undefined;
  return report(read, writes, args.json) ? 0 : 1;
}

function report(read: ReadCheckReport | undefined, writes: WriteStep[] | undefined, json: boolean): boolean {
  const ok = (read?.ok ?? true) && (writes ?? []).every((step) => step.verdict === 'confirmed');
  if (json) {
    const chosen = (resource: string) => read?.choices.find((choice) => choice.resource === resource);
    const operations = [
      ...(read?.operations ?? []).map((operation) => {
        const choice = chosen(operation.resource);
        return choice ? { ...operation, choose: `${choice.variable}=${choice.choose ?? '(neither)'}` } : operation;
      }),
      ...(writes ?? []).map((step) => ({ ...step, write: true })),
    ];
    process.stdout.write(`${JSON.stringify({ ok, operations })}\n`);
    if (read)
      process.stderr.write(
        `Open API calls: ${read.calls}; ${read.choices.map((c) => `${c.variable}=${c.choose ?? '(neither)'}`).join(', ')}\n`,
      );
  } else {
    printText(read, writes, ok);
  }
  return ok;
}

if (require.main === module) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof ConfigurationError)
        for (const problem of error.problems) process.stderr.write(`Configuration error: ${problem}\n`);
      else process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      if (error instanceof UsageError || (error instanceof Error && error.name === 'TypeError' && /parseArgs|option/i.test(error.message)))
        process.stderr.write(`\n${USAGE}\n`);
      process.exit(2);
    },
  );
}
