import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/*
 * The pages' scripts are written in browser/*.ts and served compiled (npm run browser): a served copy
 * edited by hand, or a source edited without the rebuild, fails here by name.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- scripts/ are plain CommonJS, run by node as they are
const build = require('../scripts/build-browser.js') as {
  SERVED: Record<string, string>;
  compiled(source: string): string;
};
const root = resolve(__dirname, '..');

describe('the browser code', () => {
  it('is served as the compile of its TypeScript source (else: run npm run browser)', () => {
    const stale = Object.entries(build.SERVED)
      .filter(([source, served]) => readFileSync(join(root, served), 'utf8') !== build.compiled(source))
      .map(([source, served]) => `${served} is not the compile of ${source}`);
    expect(stale).toEqual([]);
  });

  it('has every source in browser/ served', () => {
    const sources = readdirSync(join(root, 'browser')).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
    expect(sources.map((name) => `browser/${name}`).sort()).toEqual(Object.keys(build.SERVED).sort());
  });
});
