#!/usr/bin/env node
/*
 * The suite under load: a test that passes only on an idle machine is broken. Runs a command
 * `--runs` times (3) beside `--hogs` CPU-bound processes (1) and ends with each run's "N passed, M
 * failed", the load and how many runs were green. Options come before `--`, the command after
 * (README, "Under load"); the hogs stop with the runs.
 */
'use strict';
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function options(argv) {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? ['bash', '.ci/run'] : argv.slice(split + 1);
  const number = (name, fallback) => {
    const at = own.indexOf(name);
    if (at === -1) return fallback;
    const value = Number(own[at + 1]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} takes a whole number, not "${own[at + 1]}"`);
    return value;
  };
  return { runs: number('--runs', 3), hogs: number('--hogs', 1), command };
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** Runs the command once, its output passed through; answers its exit code and its last "N passed, M failed" line. */
function runOnce(command) {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let summary = 'no "N passed, M failed" line';
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop();
      for (const line of lines) if (/^\d+ passed, \d+ failed$/.test(line.trim())) summary = line.trim();
    });
    child.once('exit', (code) => {
      if (/^\d+ passed, \d+ failed$/.test(pending.trim())) summary = pending.trim();
      resolve({ code: code ?? 1, summary });
    });
  });
}

async function main() {
  const { runs, hogs, command } = options(process.argv.slice(2));
  const spinning = Array.from({ length: hogs }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  const stopHogs = () => spinning.forEach((hog) => hog.kill('SIGKILL'));
  process.once('exit', stopHogs);
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => {
      stopHogs();
      process.exit(1);
    });
  const results = [];
  for (let run = 1; run <= runs; run++) {
    console.log(`[loaded] run ${run} of ${runs} beside ${hogs} CPU hog(s): ${command.join(' ')} (load ${load()})`);
    const started = Date.now();
    const { code, summary } = await runOnce(command);
    results.push({ run, code, summary, seconds: Math.round((Date.now() - started) / 1000), load: load() });
  }
  stopHogs();
  for (const { run, code, summary, seconds, load: after } of results)
    console.log(`[loaded] run ${run}: ${summary}, exit ${code}, ${seconds} s, load after ${after}`);
  const green = results.filter((result) => result.code === 0).length;
  console.log(`[loaded] ${green} of ${runs} runs passed`);
  process.exit(green === runs ? 0 : 1);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
