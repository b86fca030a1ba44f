import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { createApp } from './app.factory';
import { parseConfiguration } from './config/parse-configuration';
import { buildOpenApiDocument } from './docs/openapi';

/** Where `npm run openapi` (this entry, beside main.ts: it builds the whole app) writes the document, for sites that generate their client from a file. */
export const OPENAPI_FILE = 'docs/openapi.json';

/**
 * The document as /docs-json serves it, built from the product's routes alone (no sandbox, no Redis,
 * no upstream call: the app is built, never started), as stable JSON text.
 */
export async function openApiText(): Promise<string> {
  const config = parseConfiguration({
    NODE_ENV: 'development',
    SANDBOX: 'false',
    GUESTY_CLIENT_ID: 'openapi-document',
    GUESTY_CLIENT_SECRET: 'openapi-document',
    CHECKOUT_RETURN_URL: 'http://localhost:3000/checkout/done',
    LOG_LEVEL: 'error',
    LOG_PRETTY: 'false',
    DOCS_ENABLED: 'false',
  });
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  const { app } = await createApp(config, { logDestination: quiet });
  try {
    return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

if (require.main === module) {
  const root = resolve(__dirname, '../..');
  openApiText()
    .then((text) => {
      writeFileSync(resolve(root, OPENAPI_FILE), text);
      process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`openapi: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
