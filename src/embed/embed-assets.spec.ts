import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbedAssets } from './embed-assets';

describe('the drop-in checkout files', () => {
  it('are read again when asked for: an edited file is served on the next load with its new ETag, as watch mode needs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'embed-assets-'));
    try {
      writeFileSync(join(dir, 'frame.js'), 'first();');
      const assets = new EmbedAssets(dir);
      const first = assets.read('frame.js');
      expect(first).toMatchObject({ text: 'first();', type: 'text/javascript; charset=utf-8' });
      writeFileSync(join(dir, 'frame.js'), 'edited();');
      const edited = assets.read('frame.js');
      expect(edited.text).toBe('edited();');
      expect(edited.etag).not.toBe(first.etag);
    } finally {
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
