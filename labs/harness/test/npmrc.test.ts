/**
 * Install noise and onnxruntime-node's CUDA download. npm before 11.16 (npm 10 is Node 20 and 22's npm) ignores
 * package.json's allowScripts and runs onnxruntime-node's install script, which on Linux x64 downloads CUDA provider
 * libraries from api.nuget.org (and fails offline); ONNXRUNTIME_NODE_INSTALL=skip, which that script reads
 * (script/install-utils.js: parseInstallFlag), makes it exit at once: README's install line for npm 10. No .npmrc key
 * does it any more: npm 11 called the old one (onnxruntime-node-install=skip) "Unknown project config" on every
 * command, and no hook of ours runs before a dependency's postinstall (npm runs workspaces' scripts after all of them).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
// onnxruntime-node is a dependency of the gpu-batching lab, hoisted to the root node_modules.
const ORT_DIR = path.dirname(createRequire(path.join(REPO, 'labs', 'gpu-batching', 'package.json')).resolve('onnxruntime-node/package.json'));

/** onnxruntime-node's install script as npm runs it, with every request sent to a proxy that refuses connections. */
function runInstallScript(extra: Record<string, string>) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, GLOBAL_AGENT_HTTP_PROXY: 'http://127.0.0.1:9', GLOBAL_AGENT_HTTPS_PROXY: 'http://127.0.0.1:9' };
  for (const key of ['ONNXRUNTIME_NODE_INSTALL', 'ONNXRUNTIME_NODE_INSTALL_CUDA', 'npm_config_onnxruntime_node_install', 'npm_config_onnxruntime_node_install_cuda']) {
    if (!(key in extra)) delete env[key];
  }
  // Under `npm test` these name the course's own package.json, and the script then takes itself for a local install of
  // onnxruntime-node and exits at once: an install script of a dependency never sees them pointing there.
  delete env.npm_config_local_prefix;
  delete env.npm_package_json;
  return spawnSync(process.execPath, [path.join(ORT_DIR, 'script', 'install.js')], { cwd: ORT_DIR, env, encoding: 'utf8', timeout: 60_000 });
}

test('npm reads no key of the repository it calls unknown (npm 11 prints a warning on every command for one)', () => {
  // The npm that runs `npm test`, else the one on PATH: its config check is what a newcomer sees.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const run = spawnSync(npm[0]!, [...npm.slice(1), 'config', 'get', 'registry'], { cwd: REPO, encoding: 'utf8', env: { ...process.env, npm_config_userconfig: '/dev/null' }, timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /Unknown (project|user|builtin|global) config/);
  assert.equal(existsSync(path.join(REPO, '.npmrc')), false, 'no .npmrc: its one key was unknown to npm 11');
});

test("ONNXRUNTIME_NODE_INSTALL=skip, README's install under npm 10, makes onnxruntime-node's install script skip its download", () => {
  const skipped = runInstallScript({ ONNXRUNTIME_NODE_INSTALL: 'skip' });
  assert.equal(skipped.status, 0, skipped.stdout + skipped.stderr);
  assert.equal(skipped.stdout + skipped.stderr, '', 'it exits before any download');
});

test('without it the script tries the download, and fails where the feed cannot be reached', () => {
  const unreachable = runInstallScript({});
  assert.notEqual(unreachable.status, 0, 'the script must try to download here, or the test above proves nothing');
  assert.match(unreachable.stdout + unreachable.stderr, /Downloading|ECONNREFUSED|Failed/i);
});
