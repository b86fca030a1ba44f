import { HttpService } from '@nestjs/axios';
import axios from 'axios';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsService } from '../../src/metrics/metrics.service';
import { UpstreamError } from '../../src/upstream/upstream-error';
import { UpstreamHttp } from '../../src/upstream/upstream-http';
import { UpstreamMetrics } from '../../src/upstream/upstream-metrics';
import { quietLogs, unitConfig } from '../utils/unit-kit';

/**
 * A platform that keeps its answer coming a byte at a time never lets the connection go idle: an
 * idle timeout alone would wait on it for ever, holding the guest's Idempotency-Key and the
 * reservation's lease meanwhile. UPSTREAM_TIMEOUT_MS bounds the whole call.
 */
describe('an upstream call has a deadline, however the platform answers', () => {
  let server: Server;
  const trickling = new Set<ServerResponse>();

  beforeAll(async () => {
    quietLogs();
    server = createServer((_req, res) => {
      trickling.add(res);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"results": [');
      const drip = setInterval(() => res.write(' '), 100);
      res.on('close', () => {
        clearInterval(drip);
        trickling.delete(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const res of trickling) res.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives up an answer that trickles in past UPSTREAM_TIMEOUT_MS: unavailable, and maybe sent', async () => {
    const { port } = server.address() as AddressInfo;
    const { service: config } = unitConfig({ GUESTY_API_URL: `http://127.0.0.1:${port}`, UPSTREAM_TIMEOUT_MS: '500' });
    const http = new UpstreamHttp(new HttpService(axios.create()), config, new UpstreamMetrics(new MetricsService()));

    const failed = await http
      .send({ operation: 'listPaymentMethods', host: 'api', method: 'GET', path: '/guests/g-1/payment-methods' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(failed).toBeInstanceOf(UpstreamError);
    expect(failed).toMatchObject({ code: 'upstream_unavailable', maybeSent: true });
  });
});
