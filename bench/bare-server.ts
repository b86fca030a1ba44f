/*
 * The bare baseline of the hot-read scenarios (4 and 7): a plain node:http server in its own
 * process that answers every request with the service's own JSON and headers (BENCH_BARE_ANSWER),
 * so both put the same bytes on the wire and the ratio measures the service's work, not its header
 * bytes.
 */
import { createServer } from 'node:http';

export interface BareAnswer {
  /** Header names and values in the service's order and case, flat (Date, Connection and Keep-Alive left to node:http). */
  headers: string[];
  body: string;
  /** The service's keep-alive timeout, so that node:http's Keep-Alive header is the same too. */
  keepAliveTimeoutMs: number;
}

const answer = JSON.parse(process.env.BENCH_BARE_ANSWER ?? '{}') as BareAnswer;
const server = createServer((_request, response) => {
  response.writeHead(200, answer.headers).end(answer.body);
});
server.keepAliveTimeout = answer.keepAliveTimeoutMs;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('disconnect', () => process.exit(0));
