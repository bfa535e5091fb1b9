import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeVersionProblem } from '../bin/require-node.mjs';

test('Node versions that run .ts files directly pass; older ones get the problem and the fix', () => {
  for (const ok of ['24.21.0', 'v24.0.0', '23.6.0', '22.18.0', '22.20.1', '25.1.0']) assert.equal(nodeVersionProblem(ok), null, ok);
  for (const old of ['20.20.2', 'v22.17.1', '23.5.0', '18.0.0']) {
    const message = nodeVersionProblem(old, '/usr/bin/node');
    assert.ok(message, old);
    assert.match(message, new RegExp(`this is Node ${old.replace(/^v/, '').replaceAll('.', '\\.')} \\(/usr/bin/node\\)`));
    assert.match(message, /npm ci installs the\ncourse's Node 24/);
    assert.match(message, /episodes\/01-setup\.mdx/);
  }
});

test('run as a script on this Node it exits 0 silently', () => {
  const script = fileURLToPath(new URL('../bin/require-node.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  assert.equal(run.status, 0);
  assert.equal(run.stderr, '');
});

test('run by an old Node it exits 2 with the message', { skip: !existsNode20() && 'no system Node 20 at /usr/bin/node' }, () => {
  const script = fileURLToPath(new URL('../bin/require-node.mjs', import.meta.url));
  const run = spawnSync('/usr/bin/node', [script], { encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /This course needs Node\.js 22\.18 or newer/);
});

function existsNode20(): boolean {
  const probe = spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return probe.status === 0 && nodeVersionProblem(probe.stdout.trim()) !== null;
}
