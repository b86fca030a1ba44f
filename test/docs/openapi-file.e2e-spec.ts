import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OPENAPI_FILE, openApiText } from '../../src/write-openapi';

/** The first line where the committed document and the routes' own differ, to say what drifted. */
function firstDifference(committed: string, current: string): string {
  const a = committed.split('\n');
  const b = current.split('\n');
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '')}, routes say ${JSON.stringify(b[at] ?? '')}`;
}

describe(`${OPENAPI_FILE}, the contract written to the repository`, () => {
  it('is the document the routes describe today (else: run npm run openapi)', async () => {
    const current = await openApiText();
    const committed = readFileSync(resolve(__dirname, '../..', OPENAPI_FILE), 'utf8');
    if (committed !== current) {
      throw new Error(`${OPENAPI_FILE} is stale — run npm run openapi and commit it (${firstDifference(committed, current)})`);
    }
    expect(JSON.parse(committed)).toHaveProperty(['paths', '/checkout/sessions/{id}/payment-status', 'get']);
  });
});
