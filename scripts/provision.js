'use strict';
/*
 * What the test suite needs from the machine, found or installed: a redis-server and Debian's
 * Chromium, for scripts/test.js, so `npm test` and .ci/run set up alike. When it cannot install
 * (not root, no apt-get, no network), one line says what to run instead. TEST_TOOLS_PATH
 * (PATH-like) is where to look; an empty directory exercises the install path.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The Debian packages, and where they put the binary. */
const TOOLS = {
  'redis-server': { pkg: 'redis-server', installed: '/usr/bin/redis-server' },
  chromium: { pkg: 'chromium', installed: '/usr/bin/chromium' },
  // The integration guide's curl walkthrough, run as it is written.
  curl: { pkg: 'curl', installed: '/usr/bin/curl' },
  jq: { pkg: 'jq', installed: '/usr/bin/jq' },
};

function lookupDirs() {
  const given = process.env.TEST_TOOLS_PATH;
  if (given !== undefined) return given.split(path.delimiter).filter(Boolean);
  return [...(process.env.PATH || '').split(path.delimiter).filter(Boolean), '/usr/bin'];
}

function executable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function find(name) {
  for (const dir of lookupDirs()) {
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

function say(line) {
  process.stderr.write(`[provision] ${line}\n`);
}

let aptUpdated = false;

/** apt-get install as root; null when it worked, else the reason. */
function aptInstall(pkg) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) return 'not running as root';
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) return 'apt-get is not available';
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    const update = spawnSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'pipe'], env });
    if (update.status !== 0) return `apt-get update failed (${String(update.stderr).trim().split('\n').pop() || 'no network?'})`;
    aptUpdated = true;
  }
  const install = spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: ['ignore', 'ignore', 'pipe'], env });
  if (install.status !== 0) return `apt-get install ${pkg} failed (${String(install.stderr).trim().split('\n').pop() || 'unknown error'})`;
  return null;
}

/**
 * The tool's path: found, or installed now. `required` tools end the run when missing; the others
 * only make the tests that need them fail with the explanation (exported as TEST_MISSING_<NAME>).
 */
function provide(name) {
  const found = find(name);
  if (found) return { path: found };
  const { pkg, installed } = TOOLS[name];
  say(`${name} not found: installing the Debian package ${pkg} (apt-get install ${pkg})`);
  const failure = aptInstall(pkg);
  if (failure === null && executable(installed)) {
    say(`${name} installed at ${installed}`);
    return { path: installed };
  }
  const why = failure || `the package did not provide ${installed}`;
  return { missing: `${name} is needed and could not be installed (${why}). Run as root: apt-get update && apt-get install -y ${pkg}` };
}

module.exports = { provide, find, say };
