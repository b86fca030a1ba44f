/*
 * `npm run browser` (also run by `npm run client`): the drop-in checkout's and the demo page's
 * scripts, written in TypeScript in browser/, are type-checked against the DOM and the typed client,
 * then compiled one module at a time to the plain, committed files the service serves.
 * src/browser-build.spec.ts fails when a served file is not the compile of its source.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');

/** Each source and the file served from it, under the name its page loads. */
const SERVED = {
  'browser/frame.ts': 'src/embed/public/frame.js',
  'browser/frame-words.ts': 'src/embed/public/frame-words.js',
  'browser/demo.ts': 'sandbox/demo/public/demo.js',
};

function compilerOptions() {
  const file = path.join(root, 'browser/tsconfig.json');
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(file)).options;
}

/**
 * The served file's text: tsc's output for the source alone, which is what a whole program emits
 * for it (the sources import with `import type` and use only erasable syntax), under a line naming it.
 */
function compiled(source, options = compilerOptions()) {
  const text = fs.readFileSync(path.join(root, source), 'utf8');
  const { outputText } = ts.transpileModule(text, { compilerOptions: options, fileName: source });
  return `// Compiled from ${source} by \`npm run browser\`: edit that file, then run it again.\n\n${outputText}`;
}

function main() {
  execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'browser/tsconfig.json', '--noEmit'], { cwd: root, stdio: 'inherit' });
  const options = compilerOptions();
  for (const [source, served] of Object.entries(SERVED)) fs.writeFileSync(path.join(root, served), compiled(source, options));
  console.log(`wrote ${Object.values(SERVED).join(', ')}`);
}

if (require.main === module) main();

module.exports = { SERVED, compiled };
