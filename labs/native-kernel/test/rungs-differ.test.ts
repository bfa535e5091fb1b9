/**
 * The three native rungs must be three different builds. (They once were not: node-gyp put each rung's object file
 * for a source outside the package at one shared path, and all three modules ran whichever compiled last.)
 * Reads the machine code of kernel::matmul_rows in each module with objdump; x86-64 only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { rungStatus, type Rung } from '../src/addon.ts';

const hasObjdump = spawnSync('objdump', ['--version']).status === 0;
const built = (['O0', 'O3', 'march'] as Rung[]).every((r) => rungStatus('solution', r).available);
const skip = process.arch !== 'x64' ? 'x86-64 only' : !hasObjdump ? 'objdump is not installed' : !built ? 'the addon is not built here' : false;

/** The instructions of kernel::matmul_rows in a module, one per line. */
function matmulRowsCode(rung: Rung): string {
  const status = rungStatus('solution', rung);
  assert.ok(status.available);
  const out = spawnSync('objdump', ['-d', '--no-show-raw-insn', status.file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const start = out.stdout.search(/<_ZN6kernel11matmul_rows[^>@]*>:\n/); // the function, not its @plt stub
  assert.ok(start >= 0, `kernel::matmul_rows not found in ${status.file}`);
  const rest = out.stdout.slice(start);
  return rest.slice(0, rest.indexOf('\n\n'));
}

test('-O0, -O3 and -O3 -march=native compile the loop differently: scalar, SSE2 vectors, and FMA on wide vectors', { skip }, () => {
  const o0 = matmulRowsCode('O0');
  const o3 = matmulRowsCode('O3');
  const march = matmulRowsCode('march');
  assert.doesNotMatch(o0, /\b(mulpd|vfmadd\w*pd)\b/, '-O0 does not vectorise');
  assert.match(o3, /\bmulpd\b/, '-O3 vectorises with packed SSE2 multiplies');
  assert.doesNotMatch(o3, /\bvfmadd/, '-O3 for any x86-64 cannot assume FMA');
  const cpuHasFma = /\bfma\b/.test(spawnSync('cat', ['/proc/cpuinfo'], { encoding: 'utf8' }).stdout ?? '');
  if (cpuHasFma) assert.match(march, /\bvfmadd\w*pd\b/, '-march=native on a CPU with FMA uses packed fused multiply-adds');
  assert.notEqual(o3, march);
});
