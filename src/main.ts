import './common/telemetry/register-tracing';
import 'reflect-metadata';
import { createApp, CreateAppOptions } from './app.factory';
import { ConfigurationError, parseConfiguration } from './config/parse-configuration';
import { AppConfig } from './config/app-config';

function loadConfiguration(): AppConfig {
  try {
    return parseConfiguration(process.env);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      for (const problem of error.problems) process.stderr.write(`Configuration error: ${problem}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * The simulator and the demo page, loaded only in sandbox mode: they are not part of the production
 * import graph, and the production image does not carry them (see Dockerfile).
 */
async function sandboxMode(config: AppConfig) {
  if (!config.runtime.sandbox) return { config, modules: [], banner: undefined };
  let entry: typeof import('../sandbox/sandbox-mode');
  try {
    entry = await import('../sandbox/sandbox-mode');
  } catch (cause) {
    throw new Error(
      'sandbox mode needs the simulator, which this build does not carry (the production image ships the product only): set GUESTY_CLIENT_ID and GUESTY_CLIENT_SECRET',
      { cause },
    );
  }
  return entry.startSandboxMode(config);
}

/** Starts the service from the environment; exported so a test harness can add probe routes. */
export async function bootstrap(options: Omit<CreateAppOptions, 'logDestination'> = {}): Promise<void> {
  const { config, modules, banner } = await sandboxMode(loadConfiguration());
  const { app, logger } = await createApp(config, { ...options, extraModules: [...(options.extraModules ?? []), ...modules] });
  // Before listen: a SIGTERM that arrives during start-up still drains and exits 0.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  await app.listen({ port: config.http.port, host: '0.0.0.0' });
  const address = app.getHttpServer().address();
  logger.info(
    {
      port: typeof address === 'object' && address ? address.port : config.http.port,
      publicBaseUrl: config.http.publicBaseUrl,
      sandbox: config.runtime.sandbox,
      nodeEnv: config.runtime.nodeEnv,
    },
    'booking checkout service listening',
  );
  if (banner) process.stdout.write(banner);
}

if (require.main === module) {
  bootstrap().catch((error: unknown) => {
    process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
