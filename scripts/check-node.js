'use strict';
/*
 * The service, its tests and the bench run on Node 24, the `node` dev dependency npm puts first on
 * PATH. An install that skipped its preinstall (`npm ci --ignore-scripts`) leaves the machine's
 * Node there instead; rather than run on it, `node scripts/check-node.js` or `requireNode()` says
 * so and exits 1. Plain CommonJS, so any Node that runs npm parses it.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** [major, minor, patch] of "v24.11.0" or "24.11". */
function parts(version) {
  return String(version)
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0)
    .concat([0, 0, 0])
    .slice(0, 3);
}

function compare(a, b) {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** `engines.node` of package.json, written as ">=A.B <C". */
function supportedRange() {
  const range = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
  const match = /^>=\s*([\d.]+)\s+<\s*([\d.]+)$/.exec(range.trim());
  if (!match) throw new Error(`scripts/check-node.js reads engines.node as ">=A.B <C"; package.json has "${range}"`);
  return { range, from: parts(match[1]), below: parts(match[2]) };
}

/** Null when this process runs on a supported Node, else what to tell the person running it. */
function problem(version = process.version, execPath = process.execPath) {
  const { range, from, below } = supportedRange();
  const current = parts(version);
  if (compare(current, from) >= 0 && compare(current, below) < 0) return null;
  const projectNode = path.join(root, 'node_modules', 'node', 'bin', 'node');
  const why = fs.existsSync(projectNode)
    ? `The project's Node is installed (${path.relative(root, projectNode)}): run this through npm (npm test, npm start, npm run bench), which puts it first on PATH.`
    : "The project's Node is not installed: the `node` package's preinstall did not run (an install with --ignore-scripts, " +
      'or its approval in package.json "allowScripts" is missing). Run `npm rebuild node` to install it, or use a Node 24 of your own.';
  return `This project runs on Node ${range} (package.json engines); this is Node ${version} (${execPath}). ${why}`;
}

/** Ends the process with the explanation when it does not run on a supported Node. */
function requireNode() {
  const message = problem();
  if (message === null) return;
  process.stderr.write(`[node] ${message}\n`);
  process.exit(1);
}

module.exports = { problem, requireNode };

if (require.main === module) requireNode();
