/**
 * node-gyp (gyp's make generator) writes the makefiles of a dependency that lives outside the package being built
 * (node-addon-api, reached through the copy's node_modules link to this checkout's) outside the build folder: at
 * `<build>/../../../..` joined with the relative path from the build folder to the dependency, its leading `..`
 * dropped. For a copy at `<tmp>/<copy>/labs/native-kernel` that lands in the temp folder (seen as
 * `<tmp>/work/main/node_modules/node-addon-api` for a checkout at /work/main, and `<tmp>/fresh-clone.X/p/...` for one
 * under /tmp). Tests that build a copy in the temp folder remove exactly that tree, and the folders above it that it
 * left empty.
 */
import { readdirSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = realpathSync(fileURLToPath(new URL('../../../../', import.meta.url)));

/** `root` is the copy's repository root (it holds labs/native-kernel). */
export function removeGypLeak(root: string): void {
  const build = path.join(realpathSync(path.dirname(root)), path.basename(root), 'labs', 'native-kernel', 'build');
  const base = path.resolve(build, '..', '..', '..', '..');
  const dependency = path.join(REPO, 'node_modules', 'node-addon-api');
  const stripped = path.relative(build, dependency).split(path.sep).filter((part) => part !== '..').join(path.sep);
  const leak = path.join(base, stripped);
  if (!leak.startsWith(base + path.sep) || leak.startsWith(REPO + path.sep)) return; // never anything of the checkout
  rmSync(leak, { recursive: true, force: true });
  // Then the parents it created, while they are empty, up to (not including) the base folder.
  for (let dir = path.dirname(leak); dir.startsWith(base + path.sep); dir = path.dirname(dir)) {
    try {
      if (readdirSync(dir).length > 0) break;
      rmdirSync(dir);
    } catch {
      break;
    }
  }
}
