/**
 * node-gyp (gyp's make generator) writes the makefiles of a dependency that lives outside the package being built
 * (node-addon-api, reached through the copy's node_modules link to this checkout's) at
 * `<build>/../../..` + that dependency's absolute path: for a copy at `<tmp>/<copy>/labs/native-kernel`, under
 * `<tmp>/<this checkout's absolute path>/node_modules/node-addon-api`. Tests that build a copy of the package in the
 * temp folder remove exactly that tree afterwards, and the folders above it that it left empty.
 */
import { readdirSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = realpathSync(fileURLToPath(new URL('../../../../', import.meta.url)));

export function removeGypLeak(): void {
  const tmp = os.tmpdir();
  const leak = path.join(tmp, REPO.slice(path.parse(REPO).root.length), 'node_modules', 'node-addon-api');
  rmSync(leak, { recursive: true, force: true });
  // Then the parents it created, while they are empty, up to (not including) the temp folder.
  for (let dir = path.dirname(leak); dir.startsWith(tmp + path.sep) && dir !== tmp; dir = path.dirname(dir)) {
    try {
      if (readdirSync(dir).length > 0) break;
      rmdirSync(dir);
    } catch {
      break;
    }
  }
}
