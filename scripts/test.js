#!/usr/bin/env node
/*
 * The one test command (README, "Tests"; .ci/run): provisions the machine (scripts/provision.js),
 * runs jest once for both tiers and prints "N passed, M failed"; `--unit` runs the fast tier alone.
 * Redis: REDIS_URL or TEST_REDIS_URL, else 127.0.0.1:6379 if it answers (unless TEST_OWN_REDIS=1),
 * else a redis-server started here on a free port.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const { requireNode } = require('./check-node');
const { provide, say } = require('./provision');

const root = path.resolve(__dirname, '..');
const resultFile = path.join(root, 'test-results', 'jest.json');
const legacyResultFile = path.join(root, 'test-results', 'jest-legacy.json');
// The whole suite runs on the platform's current surface (the default); these end-to-end specs, every
// one that reads a reservation, its payments or its cards, run again on the legacy surface, the
// operator's way back until 2027-03-01 (GUESTY_API_SURFACE, docs/upstream.md).
const LEGACY_SURFACE_SPECS = [
  'test/payments',
  'test/reservations',
  'test/booking',
  'test/contract',
  'test/webhooks',
  'test/journal',
  'test/checkout',
  'test/invoices',
  'test/idempotency',
  'test/upstream/platform-2027.e2e-spec.ts',
];

function ping(host, port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function findRedis() {
  const given = process.env.TEST_REDIS_URL || process.env.REDIS_URL;
  if (given) return { url: given, stop: async () => undefined };
  if (process.env.TEST_OWN_REDIS !== '1' && (await ping('127.0.0.1', 6379)))
    return { url: 'redis://127.0.0.1:6379', stop: async () => undefined };
  const server = provide('redis-server');
  if (server.missing) {
    say(server.missing);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  const port = await freePort();
  say(`starting ${server.path} on 127.0.0.1:${port} for this run`);
  const child = spawn(server.path, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  if (!(await waitFor(() => ping('127.0.0.1', port), 5000))) {
    child.kill('SIGKILL');
    console.error(`redis-server did not answer on port ${port}.`);
    process.exit(1);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** Both passes' results in one line: the legacy pass counts when it ran (its file is removed before the first). */
function summaryLine() {
  if (!fs.existsSync(resultFile)) return null;
  const results = [resultFile, legacyResultFile]
    .filter((file) => fs.existsSync(file))
    .map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  return {
    passed: results.reduce((sum, result) => sum + result.numPassedTests, 0),
    failed: results.reduce((sum, result) => sum + result.numFailedTests + (result.numRuntimeErrorTestSuites || 0), 0),
    total: results.reduce((sum, result) => sum + result.numTotalTests, 0),
    ok: results.every((result) => result.success === true),
  };
}

async function main() {
  requireNode();
  if (process.argv[2] === '--summary') {
    const s = summaryLine();
    console.log(s ? `${s.passed} passed, ${s.failed} failed` : '0 passed, 1 failed');
    process.exit(s && s.ok && s.total > 0 ? 0 : 1);
  }
  const unit = process.argv.includes('--unit');
  const jestArgs = process.argv.slice(2).filter((arg) => arg !== '--unit');
  // --selectProjects takes every value after it, so it goes last and `npm run test:unit -- FILE`
  // runs FILE. The unit tier keeps its workers: its specs share no Redis or budget state for a
  // fresh worker to guard against, and starting jest and its transform again per file would cost
  // more CPU than the specs themselves.
  if (unit)
    process.exit(
      // Its two workers fill both cores: V8's garbage-collector helper threads would only take turns with them.
      await runJest(['--workerIdleMemoryLimit=100%', ...jestArgs, '--selectProjects', 'unit'], {}, resultFile, ['--single-threaded-gc']),
    );
  // Some end-to-end tests run the built service as its own process, exactly as `npm start` does;
  // `tsc -b` compiles only what changed since the last build.
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    console.error('The build failed; no test ran.');
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  const redis = await findRedis();
  const chromium = provide('chromium');
  if (chromium.missing) say(`${chromium.missing} — the browser tests will fail with this message`);
  const browserEnv = chromium.path ? { TEST_CHROMIUM: chromium.path } : { TEST_CHROMIUM_MISSING: chromium.missing };
  // Missing ones make only the curl walkthrough's test fail, with the reason on the console.
  for (const tool of ['curl', 'jq']) {
    const found = provide(tool);
    if (found.missing) say(`${found.missing} — the curl walkthrough test will fail`);
  }
  let code = 1;
  fs.rmSync(legacyResultFile, { force: true });
  try {
    const env = { TEST_REDIS_URL: redis.url, ...browserEnv };
    code = await runJest(jestArgs, env);
    // A run of chosen specs (`npm test -- FILE`) stays one pass; the whole suite adds the legacy one.
    if (jestArgs.length === 0 && !process.env.GUESTY_API_SURFACE) {
      say('the specs that read the platform, again on the legacy surface (GUESTY_API_SURFACE=legacy)');
      const legacy = await runJest(
        [...LEGACY_SURFACE_SPECS, '--selectProjects', 'e2e'],
        { ...env, GUESTY_API_SURFACE: 'legacy' },
        legacyResultFile,
      );
      code = code === 0 && legacy === 0 ? 0 : 1;
      const s = summaryLine();
      console.log(`${s.passed} passed, ${s.failed} failed`);
    }
  } finally {
    await redis.stop();
  }
  process.exit(code);
}

/**
 * CPU seconds of the reaped children (jest and its workers), read from /proc/self/stat's cutime and
 * cstime, kept by Linux in hundredths of a second; null where there is no /proc.
 */
function childrenCpuSeconds() {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/** Runs jest once with a JSON result file, prints its wall and CPU time and the closing line, and answers the exit code. */
async function runJest(args, env, file = resultFile, nodeFlags = []) {
  fs.rmSync(file, { force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const jest = require.resolve('jest/bin/jest');
  process.stderr.write(`[test] node ${process.version}\n`);
  const startedAt = Date.now();
  const cpuBefore = childrenCpuSeconds();
  const code = await new Promise((resolve) => {
    // Jest's workers inherit the node flags.
    const child = spawn(process.execPath, [...nodeFlags, jest, '--json', `--outputFile=${file}`, ...args], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...env, NODE_ENV: 'test' },
    });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.once('exit', (exitCode) => resolve(exitCode ?? 1));
  });
  const cpuAfter = childrenCpuSeconds();
  const cpu = cpuBefore === null || cpuAfter === null ? '' : `, ${(cpuAfter - cpuBefore).toFixed(1)} s CPU`;
  process.stderr.write(`[test] jest took ${((Date.now() - startedAt) / 1000).toFixed(1)} s wall${cpu}\n`);
  if (!fs.existsSync(file)) {
    console.log('0 passed, 1 failed');
    return 1;
  }
  const result = JSON.parse(fs.readFileSync(file, 'utf8'));
  const failed = result.numFailedTests + (result.numRuntimeErrorTestSuites || 0);
  if (result.numTotalTests === 0) console.error('No test ran.');
  console.log(`${result.numPassedTests} passed, ${failed} failed`);
  return code === 0 && result.success === true && result.numTotalTests > 0 ? 0 : 1;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
