import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoAssets } from './demo-assets';

describe('the demo page files', () => {
  it('are read again when asked for: an edited file is served on the next reload, as watch mode needs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-assets-'));
    try {
      writeFileSync(join(dir, 'demo.js'), 'first();');
      const assets = demoAssets(dir);
      expect(assets.read('demo.js')).toEqual({ body: 'first();', contentType: 'text/javascript; charset=utf-8' });
      writeFileSync(join(dir, 'demo.js'), 'edited();');
      expect(assets.read('demo.js').body).toBe('edited();');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names only the page files: nothing else in the folder, and nothing outside it, is served', () => {
    const assets = demoAssets('/nonexistent');
    expect(['index.html', 'demo.js', 'demo.css', 'checkout-client.js', 'favicon.svg'].every((file) => assets.has(file))).toBe(true);
    expect(['../package.json', 'toString', '__proto__', 'demo-assets.ts'].some((file) => assets.has(file))).toBe(false);
  });
});
