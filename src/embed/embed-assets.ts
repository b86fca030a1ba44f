import { existsSync, FSWatcher, readFileSync, watch } from 'node:fs';
import { join, resolve } from 'node:path';
import { strongEtag } from '../common/http/public-answer';

/** The drop-in checkout's files by name, with their types: nothing else is served from the folder. */
const TYPES = {
  'embed.js': 'text/javascript; charset=utf-8',
  'frame.html': 'text/html; charset=utf-8',
  'frame.js': 'text/javascript; charset=utf-8',
  'frame.css': 'text/css; charset=utf-8',
  'frame-words.js': 'text/javascript; charset=utf-8',
  'checkout-client.js': 'text/javascript; charset=utf-8',
  'returned.html': 'text/html; charset=utf-8',
  'returned.js': 'text/javascript; charset=utf-8',
} as const;

export type EmbedFile = keyof typeof TYPES;

export interface EmbedAsset {
  text: string;
  type: string;
  etag: string;
}

// Plain files a site's developer can read. The image copies them beside the compiled code
// (dist/src/embed/public); run from a checkout, the compiled code reads the source tree's.
function publicDir(): string {
  const candidates = [join(__dirname, 'public'), resolve(__dirname, '../../../src/embed/public')];
  const found = candidates.find((dir) => existsSync(join(dir, 'embed.js')));
  if (!found) throw new Error('the drop-in checkout files (src/embed/public) are missing');
  return found;
}

/**
 * The files, each read and hashed once, on its first load. With `watch` (outside production) an
 * edit in the folder drops what was read, so the next load serves the edit and its new ETag.
 */
export class EmbedAssets {
  private readonly loaded = new Map<EmbedFile, EmbedAsset>();
  private readonly watcher?: FSWatcher;

  constructor(
    private readonly dir: string = publicDir(),
    options: { watch?: boolean } = {},
  ) {
    // Not persistent: the watcher alone never keeps the process alive.
    if (options.watch) this.watcher = watch(dir, { persistent: false }, () => this.loaded.clear());
  }

  isFile(name: string): name is EmbedFile {
    return Object.hasOwn(TYPES, name);
  }

  read(file: EmbedFile): EmbedAsset {
    const known = this.loaded.get(file);
    if (known) return known;
    const text = readFileSync(join(this.dir, file), 'utf8');
    const asset = { text, type: TYPES[file], etag: strongEtag(text) };
    this.loaded.set(file, asset);
    return asset;
  }

  close(): void {
    this.watcher?.close();
  }
}
