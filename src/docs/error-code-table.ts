import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ERROR_CODES, ErrorCode } from '../common/errors/error-code';

export const TABLE_BEGIN = '<!-- error-codes:begin (generated from src/common/errors/error-code.ts by src/docs/error-code-table.ts) -->';
export const TABLE_END = '<!-- error-codes:end -->';

/** The README's error-code table, from ERROR_CODES alone: code, status, title, and what it means for the site. */
export function errorCodeTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const entry: { status: number; title: string; meaning: string; retryAfter?: true } = ERROR_CODES[code];
    const status = `${entry.status}${entry.retryAfter ? ' + `Retry-After`' : ''}`;
    return `| \`${code}\` | ${status} | ${entry.title} | ${entry.meaning.replace(/\|/g, '\\|')} |`;
  });
  return ['| code | status | title | what it means for the site |', '|---|---|---|---|', ...rows].join('\n');
}

/** The README text with the table between its markers replaced by the current one. */
export function withErrorCodeTable(readme: string): string {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no ${TABLE_BEGIN} … ${TABLE_END} markers`);
  return `${readme.slice(0, begin + TABLE_BEGIN.length)}\n${errorCodeTable()}\n${readme.slice(end)}`;
}

// `npx tsc -p tsconfig.build.json && node dist/src/docs/error-code-table.js` rewrites the table in README.md.
if (require.main === module) {
  const file = resolve(__dirname, '../../../README.md');
  writeFileSync(file, withErrorCodeTable(readFileSync(file, 'utf8')));
  process.stdout.write('README.md: error-code table written\n');
}
