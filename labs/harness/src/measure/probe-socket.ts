/**
 * The socket a case asked the judge to probe from outside (CaseDefinition.probeFromOutside), pinned before the judge
 * connects. The supervisor checks that the path is a Unix socket directly in the runner's own temp folder
 * (attempt-messages.ts probeSocketRefusal), but the runner owns that folder: after the check it could put a symbolic
 * link there in the socket's place, and a connection by path would follow it to any socket of the machine (the
 * link's text is read in the judge's namespace, not the sandbox's). So the judge hard-links the socket's inode into a
 * folder of its own, which the runner cannot write, checks that what it linked is a socket, and probes through that
 * link: Linux's link(2) never follows a symbolic link, so a link swapped in before the pin is pinned as the link
 * itself and refused, and one swapped in after changes nothing the judge reads.
 * Input: the socket's path. Output: the path of the judge's own link to it, and a way to remove that.
 */
import { linkSync, lstatSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The judge's own link to a probe socket: `path` to connect to, `release` to remove it once the probe is over. */
export interface PinnedSocket {
  path: string;
  release(): void;
}

/**
 * Pins the Unix socket at `socketPath` (see the file's comment). Throws, saying why, when it cannot be linked (gone,
 * or on another file system than the judge's temp folder) or what it linked is not a socket (a link or a file put in
 * its place after the supervisor's check).
 */
export function pinSocket(socketPath: string): PinnedSocket {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'judge-probe-'));
  const release = () => rmSync(dir, { recursive: true, force: true });
  const pinned = path.join(dir, 'probe.sock');
  try {
    linkSync(socketPath, pinned);
  } catch (error) {
    release();
    throw new Error(`could not pin the socket ${socketPath} for the judge's probe (${(error as NodeJS.ErrnoException).code ?? String(error)}): it must stay in the run's temp folder until the judge has probed it`);
  }
  if (!lstatSync(pinned).isSocket()) {
    release();
    throw new Error(`${socketPath} is no longer a Unix socket (something was put in its place after the harness checked it): lab or learner code changed the run's temp folder`);
  }
  return { path: pinned, release };
}
