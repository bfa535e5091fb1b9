/**
 * Stand-in `nvidia-smi` programs for tests: TEST DOUBLES, not GPUs. Each is a shell script in its own temp folder,
 * put first on PATH in the returned env; the folder is removed when the test ends (t.after).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/** A driver that hangs: ignores SIGTERM, and its `sleep` (which ignores it too) holds stdout open. */
export const HUNG = "trap '' TERM\nsleep 60 &\nwait\nsleep 60";

/**
 * A printf command that prints `line` wrapped in terminal escape sequences (window title, clear screen, colours, a
 * reset, a bell, a backspace), and a line of nothing but escapes: what a broken driver or a hostile PATH could print.
 */
export function garbage(line: string): string {
  return `printf '\\033]0;pwned\\007\\033[2J\\033[1;31m%s\\033[0m\\007\\010\\n\\033[5m\\033c\\033]52;c;cHduZWQ=\\007\\n' '${line}'`;
}

export interface FakeNvidiaSmi {
  /** The folder holding the script. */
  bin: string;
  /** process.env with `bin` first on PATH. */
  env: NodeJS.ProcessEnv;
}

/** Writes `nvidia-smi` (a /bin/sh script running `body`) into a fresh temp folder. */
export function fakeNvidiaSmi(t: TestContext, body: string): FakeNvidiaSmi {
  const bin = mkdtempSync(path.join(os.tmpdir(), 'course-fake-nvidia-smi-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  writeFileSync(path.join(bin, 'nvidia-smi'), `#!/bin/sh\n# TEST DOUBLE for nvidia-smi, written by a test; not a GPU.\n${body}\n`, { mode: 0o755 });
  return { bin, env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` } };
}
