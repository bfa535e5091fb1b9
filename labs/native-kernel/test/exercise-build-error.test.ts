/**
 * A kernel.cc that does not compile is a failed check, not an unavailable rung (issue 25: `npm run lab --
 * native-kernel` exited 0 with the learner's rungs "unavailable"). In a copy of the package whose build record says
 * the exercise rungs failed to compile while the solution's built, the exercise's cases still include those rungs,
 * and setting one up fails naming the file and the compiler's first line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PKG = path.join(REPO, 'labs', 'native-kernel');

test("the learner's rungs that do not compile fail their case, naming kernel.cc", (t) => {
  const record = JSON.parse(readFileSync(path.join(PKG, 'build', 'native-kernel-build.json'), 'utf8'));
  if (!record.targets?.solution_O3?.available) return t.skip('the solution rungs are not built here (no compiler)');
  const root = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-cc-error-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const pkg = path.join(root, 'labs', 'native-kernel');
  for (const part of ['src', 'package.json']) cpSync(path.join(PKG, part), path.join(pkg, part), { recursive: true });
  mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
  const failed = { available: false, reason: "building the exercise rungs failed: ../../../exercises/native-kernel/kernel.cc:7:3: error: 'x' was not declared in this scope\n(tail)" };
  for (const rung of ['O0', 'O3', 'march']) {
    cpSync(path.join(PKG, 'build', 'Release', `solution_${rung}.node`), path.join(pkg, 'build', 'Release', `solution_${rung}.node`));
    record.targets[`exercise_${rung}`] = failed;
  }
  writeFileSync(path.join(pkg, 'build', 'native-kernel-build.json'), JSON.stringify(record));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));

  const script = `
    const { default: lab } = await import(${JSON.stringify(path.join(pkg, 'src', 'lab.ts'))});
    const ctx = { impl: 'exercise', implDir: '', rootDir: ${JSON.stringify(root)}, quick: true, availableParallelism: 2, seed: 1 };
    const o3 = lab.cases(ctx).find((c) => c.variant === 'native-O3');
    let message = 'no native-O3 case';
    if (o3) { try { await o3.setup(ctx); message = 'set up'; } catch (e) { message = e.message; } }
    console.log(JSON.stringify({ message }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  const { message } = JSON.parse(child.stdout.trim().split('\n').pop()!);
  assert.match(message, /^exercises\/native-kernel\/kernel\.cc does not compile \(the solution's rungs built with the same compiler\): building the exercise rungs failed: .*kernel\.cc:7:3: error/);
});
