import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CLI = require.resolve('@redocly/cli/bin/cli.js');

/** Redocly's recommended rules over a document, as its JSON report: totals and the problems not ignored. */
function lint(file: string): { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string }[] } {
  const run = spawnSync(process.execPath, [CLI, 'lint', file, '--format=json'], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(run.stdout) as ReturnType<typeof lint>;
}

/**
 * docs/openapi.json passes Redocly's recommended rules: explicit `security: []` on every public
 * operation, `servers` from PUBLIC_BASE_URL; each warning left is justified in .redocly.lint-ignore.yaml.
 */
describe('the OpenAPI document under Redocly', () => {
  it('has 0 errors and no warning that is not justified in the ignore file', () => {
    expect(lint('docs/openapi.json')).toMatchObject({ totals: { errors: 0, warnings: 0 }, problems: [] });
  });

  it('refuses a public operation that does not say it is public', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
    try {
      const document = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8')) as {
        paths: Record<string, Record<string, { security?: unknown }>>;
      };
      delete document.paths['/checkout/quotes'].post.security;
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const report = lint(file);
      expect(report.totals.errors).toBe(1);
      expect(report.problems.map((problem) => problem.ruleId)).toContain('security-defined');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
