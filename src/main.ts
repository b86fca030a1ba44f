import 'reflect-metadata';
import { createApp, CreateAppOptions } from './app.factory';
import { ConfigurationError, parseConfiguration } from './config/parse-configuration';
import { AppConfig } from './config/app-config';
import { describeSandbox } from './sandbox/fixture-guide';
import { startSandboxMode } from './sandbox/sandbox-mode';

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

/** Starts the service from the environment; exported so a test harness can add probe routes. */
export async function bootstrap(options: Omit<CreateAppOptions, 'logDestination'> = {}): Promise<void> {
  const { config, sandbox } = await startSandboxMode(loadConfiguration());
  const { app, logger } = await createApp(config, { ...options, sandbox });
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
  if (sandbox) {
    process.stdout.write(
      `\nSANDBOX MODE: no Guesty credentials, so the service talks to the built-in simulator below.\n` +
        `Open ${config.http.publicBaseUrl}/docs for the API. Fixtures and test cards: docs/sandbox.md.\n${describeSandbox(sandbox.urls)}\n`,
    );
  }
}

if (require.main === module) {
  bootstrap().catch((error: unknown) => {
    process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
