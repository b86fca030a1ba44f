import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ERROR_CODES, ErrorCode } from '../common/errors/error-code';
import { errorCodeTable, TABLE_BEGIN, TABLE_END, withErrorCodeTable } from './error-code-table';

const readme = readFileSync(resolve(__dirname, '../../README.md'), 'utf8');

describe('the README error-code table', () => {
  it('is the one generated from ERROR_CODES (regenerate: npx tsc -p tsconfig.build.json && node dist/src/docs/error-code-table.js)', () => {
    expect(readme).toContain(TABLE_BEGIN);
    expect(withErrorCodeTable(readme)).toBe(readme);
  });

  it('lists every code with its status, and no other code', () => {
    const table = readme.slice(readme.indexOf(TABLE_BEGIN), readme.indexOf(TABLE_END));
    const listed = [...table.matchAll(/^\| `([a-z_]+)` \| (\d{3})/gm)].map(([, code, status]) => [code, Number(status)]);
    expect(listed).toEqual((Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [code, ERROR_CODES[code].status]));
  });

  it('tells the site that payment_account_unavailable is a 502 with Retry-After', () => {
    expect(errorCodeTable()).toMatch(/^\| `payment_account_unavailable` \| 502 \+ `Retry-After` \|/m);
  });
});
