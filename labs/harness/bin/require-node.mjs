// Runs before every course command, in plain JavaScript so that it works on any Node: the course's own code is
// TypeScript, which Node runs directly only from 22.18 (and 23.6) on; an older Node would fail with an obscure
// ERR_UNKNOWN_FILE_EXTENSION before the course could say anything.
import { fileURLToPath } from 'node:url';

/** The oldest Node that runs the course's .ts files without flags. */
export const MINIMUM = [22, 18, 0];

/** null when `version` ("24.21.0", "v20.20.2") runs the course, else a message naming the problem and the fix. */
export function nodeVersionProblem(version, execPath = 'node') {
  const parts = String(version).replace(/^v/, '').split('.').map((p) => Number.parseInt(p, 10));
  const [major = 0, minor = 0] = parts;
  const ok = major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18);
  if (ok) return null;
  return [
    `This course needs Node.js 22.18 or newer (24 recommended); this is Node ${String(version).replace(/^v/, '')} (${execPath}).`,
    'Fix: on Linux x64 or arm64, run the command through npm (npm run ...) after `npm ci`: npm ci installs the',
    "course's Node 24 into node_modules and npm run uses it. On macOS or Windows, install Node 24 from https://nodejs.org",
    '(or with nvm / fnm), then npm ci again. See the setup episode: episodes/01-setup.mdx.',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem) {
    console.error(problem);
    process.exit(2);
  }
}
