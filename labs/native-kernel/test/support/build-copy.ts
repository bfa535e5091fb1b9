/**
 * A folder for a copy of the repository that a test builds the addon in.
 *
 * node-gyp (gyp's make generator) writes the makefiles of a dependency that lives outside the package being built
 * (node-addon-api, reached through the copy's node_modules link to this checkout's) outside the build folder: at
 * `<build>/../../../..` joined with the relative path from the build folder to the dependency, its leading `..`
 * dropped. For a copy at `<dir>/labs/native-kernel` that is the copy's parent folder. So each copy lives one level
 * down, at `<own>/repo`, in a folder of its own that the test removes whole: the makefiles land inside it. With copies
 * side by side in the temp folder, they landed in one shared place, and when `npm test` ran two files at once, one
 * test's clean-up removed the makefiles the other's build was reading ("No rule to make target
 * .../node_addon_api_maybe.target.mk").
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** An empty folder to copy the repository into, inside a temp folder of its own that is removed when `t` ends (a test's
 * context, or node:test's `after` for a suite). */
export function buildCopyRoot(t: { after(cleanup: () => void): unknown }, prefix: string): string {
  const own = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => rmSync(own, { recursive: true, force: true }));
  const root = path.join(own, 'repo');
  mkdirSync(root);
  return root;
}
