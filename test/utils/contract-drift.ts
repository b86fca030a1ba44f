import { INestApplication } from '@nestjs/common';
import { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import { MetricsService } from '../../src/metrics/metrics.service';

/** One kind of answer an app gave: the method, Fastify's route template (/checkout/sessions/:id) and the status. */
export interface ProducedAnswer {
  method: string;
  route: string;
  status: number;
}

/**
 * Drift between the contract and the service, in the reliable direction: every status a documented
 * route answered in a test must be documented for it in /docs-json. The reverse holds only for a
 * full run; this one fails the very file that produced the undocumented status. Routes outside the
 * document and the test probes (/test/…) are not the contract.
 */
export function undocumentedAnswers(document: Pick<OpenAPIObject, 'paths'>, produced: ProducedAnswer[]): string[] {
  const drift: string[] = [];
  for (const { method, route, status } of produced) {
    const path = route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    if (path.startsWith('/test/')) continue;
    const operation = (document.paths[path] as Record<string, { responses?: Record<string, unknown> }> | undefined)?.[method.toLowerCase()];
    if (!operation) continue;
    if (!operation.responses?.[String(status)])
      drift.push(`${method} ${path} answered ${status}, which /docs-json does not document for it`);
  }
  return drift;
}

/** What the app answered during its test (from its own http_requests_total), checked against the document it serves. */
export async function contractDrift(app: INestApplication): Promise<string[]> {
  const counted = await app.get(MetricsService).httpRequests.get();
  const produced = counted.values.map(({ labels }) => ({
    method: String(labels.method),
    route: String(labels.route),
    status: Number(labels.status),
  }));
  return undocumentedAnswers(buildOpenApiDocument(app), produced);
}
