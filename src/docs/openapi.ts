import { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/app-config';

/** The document of /docs-json, also written to docs/openapi.json by `npm run openapi` (src/write-openapi.ts). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const description = new DocumentBuilder()
    .setTitle('Booking checkout service')
    .setDescription(
      'The checkout API a booking website calls to book a stay (calendar, quote, a held reservation) and pay for it, or to pay for a ' +
        'reservation made elsewhere; then the truth about the money (payment-status) and extras; and the operator routes. ' +
        'Every error is RFC 9457 problem details (application/problem+json) with a stable `code` and the `requestId`. ' +
        'A path below called with a method it does not list answers 405 `method_not_allowed`, its `Allow` header naming the methods it takes. ' +
        'Bodies are JSON of at most 32 KiB (413 `payload_too_large` beyond). Write routes take an `Idempotency-Key` of 8 to 128 letters, digits, "-" or "_". ' +
        "Examples use the sandbox's fixtures (docs/sandbox.md).",
    )
    .setVersion('1')
    .addServer(
      app.get<ConfigService<AppConfig, true>>(ConfigService).get('http', { infer: true }).publicBaseUrl,
      'this deployment (PUBLIC_BASE_URL)',
    )
    // A plain shared key compared in constant time, not a JWT (addBearerAuth would say bearerFormat: JWT).
    .addSecurity('admin', { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY as a plain bearer key, for /admin routes' })
    .addGlobalParameters({
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description:
        'your own request id (1-128 letters, digits, ".", "_", ":" or "-"), echoed in the X-Request-Id response header, problem bodies and logs; one is made otherwise',
      schema: { type: 'string' },
    })
    .build();
  return withPublicOperations(SwaggerModule.createDocument(app, description));
}

/** Every operation that names no security scheme (all but /admin) says so: `security: []`, public on purpose. */
function withPublicOperations(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const) {
      const operation = path[method];
      if (operation && !operation.security) operation.security = [];
    }
  }
  return document;
}

/** /docs and /docs-json: the checkout API is the website's public contract, described in every mode. */
export function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json', raw: ['json'] });
}
