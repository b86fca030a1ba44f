import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'demo.js': 'text/javascript; charset=utf-8',
  'demo.css': 'text/css; charset=utf-8',
  'checkout-client.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

export interface DemoAsset {
  body: string;
  contentType: string;
}

// The page is kept as plain files for the website's developers to read; compiled code in dist/
// reads them from the source tree (the demo exists in sandbox mode only, never in the image).
function publicDir(): string {
  const candidates = [join(__dirname, 'public'), resolve(__dirname, '../../../sandbox/demo/public')];
  const found = candidates.find((dir) => existsSync(join(dir, 'index.html')));
  if (!found) throw new Error('the demo page files (sandbox/demo/public) are missing');
  return found;
}

/** The demo's files by name. Each is read again when asked for, so an edit shows on the next reload (watch mode too). */
export interface DemoAssets {
  has(file: string): boolean;
  read(file: string): DemoAsset;
}

export function demoAssets(dir: string = publicDir()): DemoAssets {
  return {
    has: (file) => Object.hasOwn(TYPES, file),
    read: (file) => ({ body: readFileSync(join(dir, file), 'utf8'), contentType: TYPES[file] }),
  };
}
