import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HttpAdapterHost } from '@nestjs/core';
import { Server } from 'node:http';
import { AppConfig } from '../config/app-config';

/**
 * The drain on SIGTERM: readiness answers 503 from the first moment (optionally while still serving
 * for SHUTDOWN_DELAY_MS), then the HTTP server stops accepting and lets in-flight requests finish;
 * connections still open after SHUTDOWN_DRAIN_MS are cut.
 */
@Injectable()
export class ShutdownState implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private shuttingDown = false;

  constructor(
    private readonly config: ConfigService<AppConfig, true>,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.shuttingDown = true;
    const { shutdownDelayMs, shutdownDrainMs } = this.config.get('http', { infer: true });
    this.logger.log({ signal, shutdownDelayMs, shutdownDrainMs }, 'shutting down: readiness is 503');
    // Keep serving while the load balancer notices the failing readiness and stops sending traffic.
    if (shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, shutdownDelayMs));
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    // The listener closes next and in-flight requests finish; whatever still runs after the bound is cut.
    if (server) setTimeout(() => server.closeAllConnections(), shutdownDrainMs).unref();
  }
}
