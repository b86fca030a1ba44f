import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/*
 * scripts/check-node.js: npm's scripts run on the project's Node 24 or stop saying why, never on
 * whatever other Node the machine has (an install with --ignore-scripts leaves exactly that).
 */
type CheckNode = { problem: (version: string, execPath: string) => string | null };
const script = join(__dirname, '..', '..', 'scripts', 'check-node.js');
const { problem } = createRequire(__filename)(script) as CheckNode;

describe('the project Node check', () => {
  it('accepts the Node 24 line from engines', () => {
    expect(problem('v24.11.0', '/opt/node')).toBeNull();
    expect(problem('v24.21.0', '/opt/node')).toBeNull();
  });

  it('refuses another version, naming the range, the version found and what to do', () => {
    const message = problem('v20.20.2', '/usr/bin/node');
    expect(message).toContain('Node >=24.11 <25');
    expect(message).toContain('Node v20.20.2 (/usr/bin/node)');
    expect(message).toMatch(/run this through npm|npm rebuild node/);
    expect(problem('v24.10.0', '/opt/node')).not.toBeNull();
    expect(problem('v25.0.0', '/opt/node')).not.toBeNull();
  });

  it('passes silently on the Node the tests run on', () => {
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
