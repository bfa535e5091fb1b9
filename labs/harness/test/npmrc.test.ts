/**
 * `npm ci` with npm 10 (Node 20 and 22's npm, which ignores package.json's allowScripts) must not run
 * onnxruntime-node's CUDA download. The root .npmrc sets `onnxruntime-node-install=skip`; npm passes it to install
 * scripts as npm_config_onnxruntime_node_install. Here the script itself runs with that environment, and with a
 * proxy that cannot be reached: it must exit 0 without a download. Without the setting it tries one and fails, as
 * `npm ci` with npm 10 did offline (a clean clone, by hand: see labs/harness/README.md, "Node and npm").
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
// onnxruntime-node is a dependency of the gpu-batching lab, hoisted to the root node_modules.
const ORT_DIR = path.dirname(createRequire(path.join(REPO, 'labs', 'gpu-batching', 'package.json')).resolve('onnxruntime-node/package.json'));

/** The environment npm gives install scripts for the keys of an .npmrc (npm's set-envs.js: npm_config_<key, - as _>). */
function npmrcEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([^#;\s=][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (match && !/^[/@_]/.test(match[1]!)) env[`npm_config_${match[1]!.replace(/-/g, '_').toLowerCase()}`] = match[2]!;
  }
  return env;
}

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

test('the root .npmrc makes onnxruntime-node\'s install script skip its download (npm 10 runs it)', () => {
  const env = npmrcEnv(readFileSync(path.join(REPO, '.npmrc'), 'utf8'));
  assert.equal(env.npm_config_onnxruntime_node_install, 'skip');
  const skipped = runInstallScript(env);
  assert.equal(skipped.status, 0, skipped.stdout + skipped.stderr);
  assert.equal(skipped.stdout + skipped.stderr, '', 'it exits before any download');
});

test('without it the script tries the download, and fails where the feed cannot be reached', () => {
  const unreachable = runInstallScript({});
  assert.notEqual(unreachable.status, 0, 'the script must try to download here, or the test above proves nothing');
  assert.match(unreachable.stdout + unreachable.stderr, /Downloading|ECONNREFUSED|Failed/i);
});
