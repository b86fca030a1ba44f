/*
 * The bare baselines of the hot-read scenarios (4 and 7), each in its own process: node:http
 * (`node`) or Fastify with the one route (`fastify`, BENCH_BARE_ROUTE), sending the service's own
 * JSON and headers (BENCH_BARE_ANSWER), so a ratio measures the service's work, not header bytes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastify } from 'fastify';

export interface BareAnswer {
  /** Header names and values in the service's order and case, flat (Date, Connection and Keep-Alive left to node:http). */
  headers: string[];
  body: string;
  /** The service's keep-alive timeout, so that node:http's Keep-Alive header is the same too. */
  keepAliveTimeoutMs: number;
}

/** Which bare server: node:http alone, or Fastify routing the service's route template. */
export type BareKind = 'node' | 'fastify';

const answer = JSON.parse(process.env.BENCH_BARE_ANSWER ?? '{}') as BareAnswer;
const listening = (address: AddressInfo | string | null) =>
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });

if ((process.argv[2] as BareKind) === 'fastify') {
  const headers: Record<string, string> = {};
  for (let index = 0; index < answer.headers.length; index += 2) headers[answer.headers[index]] = answer.headers[index + 1];
  const app = fastify({ keepAliveTimeout: answer.keepAliveTimeoutMs });
  // The headers carry the service's Content-Type and Content-Length: Fastify sends the text as it is.
  app.get(process.env.BENCH_BARE_ROUTE ?? '/*', (_request, reply) => {
    void reply.headers(headers).send(answer.body);
  });
  void app.listen({ port: 0, host: '127.0.0.1' }).then(() => listening(app.server.address()));
} else {
  const server = createServer((_request, response) => {
    response.writeHead(200, answer.headers).end(answer.body);
  });
  server.keepAliveTimeout = answer.keepAliveTimeoutMs;
  server.listen(0, '127.0.0.1', () => listening(server.address()));
}
process.on('disconnect', () => process.exit(0));
