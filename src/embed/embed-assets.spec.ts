import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbedAssets } from './embed-assets';

describe('the drop-in checkout files', () => {
  it('are read and hashed once: a second load does not touch the disk', () => {
    const dir = mkdtempSync(join(tmpdir(), 'embed-assets-'));
    try {
      writeFileSync(join(dir, 'frame.js'), 'first();');
      const assets = new EmbedAssets(dir);
      const first = assets.read('frame.js');
      expect(first).toMatchObject({ text: 'first();', type: 'text/javascript; charset=utf-8' });
      rmSync(join(dir, 'frame.js'));
      expect(assets.read('frame.js')).toBe(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('outside production an edited file is served on the next load with its new ETag, as watch mode needs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'embed-assets-'));
    const assets = new EmbedAssets(dir, { watch: true });
    try {
      writeFileSync(join(dir, 'frame.js'), 'first();');
      const first = assets.read('frame.js');
      writeFileSync(join(dir, 'frame.js'), 'edited();');
      // Until the folder's event reaches the watcher the first text is served: each turn yields to it.
      while (assets.read('frame.js') === first) await new Promise((resolve) => setImmediate(resolve));
      const edited = assets.read('frame.js');
      expect(edited.text).toBe('edited();');
      expect(edited.etag).not.toBe(first.etag);
    } finally {
      assets.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names only the checkout files: nothing else in the folder, and nothing outside it', () => {
    const assets = new EmbedAssets('/nonexistent');
    expect(
      ['embed.js', 'frame.html', 'frame.js', 'frame.css', 'frame-words.js', 'checkout-client.js'].every((file) => assets.isFile(file)),
    ).toBe(true);
    expect(['../package.json', 'toString', '__proto__', 'embed.service.ts'].some((file) => assets.isFile(file))).toBe(false);
  });
});
