import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'site.html': 'text/html; charset=utf-8',
  'site.js': 'text/javascript; charset=utf-8',
  'site.css': 'text/css; charset=utf-8',
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
function sourceDir(path: string, file: string): string {
  const candidates = [resolve(__dirname, '../..', path), resolve(__dirname, '../../..', path)];
  const found = candidates.find((dir) => existsSync(join(dir, file)));
  if (!found) throw new Error(`the demo page's files (${path}) are missing`);
  return found;
}

/** The typed client's one committed build is the drop-in checkout's (npm run client); the demo serves it too. */
const CLIENT = 'checkout-client.js';

/** The demo's files by name. Each is read again when asked for, so an edit shows on the next reload (watch mode too). */
export interface DemoAssets {
  has(file: string): boolean;
  read(file: string): DemoAsset;
}

export function demoAssets(
  dir: string = sourceDir('sandbox/demo/public', 'index.html'),
  clientDir: string = sourceDir('src/embed/public', CLIENT),
): DemoAssets {
  return {
    has: (file) => Object.hasOwn(TYPES, file),
    read: (file) => ({ body: readFileSync(join(file === CLIENT ? clientDir : dir, file), 'utf8'), contentType: TYPES[file] }),
  };
}
