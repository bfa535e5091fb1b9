/**
 * The exercises make learners think (issue 18): an exercise states the goal, the interface and the constraint, and
 * never the code. For each lab, the key lines of its solution (whitespace collapsed) must appear nowhere in the
 * exercise's files, comments included; and the lab's episode gives every learner file progressive help: a challenge
 * that names the file with, folded, a hint, a stronger hint and the solution.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { labNames, loadLab, ROOT_DIR } from '../src/lab-registry.ts';

/** The solution's key lines per lab: what an exercise must leave for the learner to write. */
const KEY_LINES: Record<string, readonly string[]> = {
  'event-loop': [
    'minThreads: workers, maxThreads: workers',
    'setImmediate(resolve)',
    'new Piscina({',
    'pool.run({ account })',
    'pool.destroy()',
    'promisify(pbkdf2)',
    'Promise.all(',
    'return deriveRingSync(account)',
  ],
  'task-granularity': [
    'tasks.map((task) => runner.run(task))',
    'runner.run(',
    'Promise.allSettled',
    'new ChunkFailedError(failures, tasks.length)',
    'Atomics.add',
    'new Int32Array(BINS)',
    'addChunk(local',
    'bytes.slice()',
    'new SharedArrayBuffer(bytes.length)',
    'staged.buffer',
  ],
  'task-graph': [
    'g.multiply(level[k]!, level[k + 1]!)',
    'while (level.length > 1)',
    'level.length % 2 === 1',
  ],
  'native-kernel': [
    'c_row[j] += a_ik * b_row[j]',
    'const double a_ik = a[i * n + k]',
    'for (std::size_t j = 0; j < n; ++j) c_row[j] = 0.0',
    'pack_b(b, n, k0, kc, j0, nc, packed_b)',
    'pack_a(a, n, i0, mc, k0, kc, packed_a)',
    'micro_kernel(kc, packed_a + ir * kc, packed_b + jr * kc, tile)',
    'constexpr std::size_t kKc = 192',
  ],
  'gpu-batching': [
    'Math.ceil(total / parts)',
    'Math.min(size, total - start)',
    'Math.min(batchSize, count - start)',
    'samples.subarray(start * model.features, (start + n) * model.features)',
    'out.set(logits, start * model.outputs)',
    'next += n',
    '.catch(() => {})',
    'reads.shift()',
    'models.map(async (model)',
    'Promise.all(',
  ],
};

/** Words that hand over a design choice the exercise leaves to the learner, though they are not code of the solution. */
const GIVEAWAYS: Record<string, readonly string[]> = {
  'native-kernel': ['i-k-j', 'loop k outside j', 'k outside j'],
};

/** Whitespace collapsed to one space, so a line split differently still matches. */
function normalise(text: string): string {
  return text.replace(/\s+/g, ' ');
}

test('every lab lists the key lines of its solution', () => {
  assert.deepEqual(Object.keys(KEY_LINES).sort(), labNames().slice().sort());
});

for (const name of labNames()) {
  test(`exercises/${name} states the goal, not the solution's code`, async () => {
    const lab = await loadLab(name);
    const solutionText = normalise(lab.learnerFiles.map((f) => readFileSync(path.join(ROOT_DIR, 'solutions', name, f.file), 'utf8')).join('\n'));
    for (const learner of lab.learnerFiles) {
      const exercise = normalise(readFileSync(path.join(ROOT_DIR, 'exercises', name, learner.file), 'utf8'));
      const given = [...(KEY_LINES[name] ?? []), ...(GIVEAWAYS[name] ?? [])].filter((line) => exercise.includes(normalise(line)));
      assert.deepEqual(given, [], `exercises/${name}/${learner.file} gives away the solution: it contains ${given.map((l) => `"${l}"`).join(', ')}`);
    }
    // The list stays honest: every key line is really in the solution, so a renamed line cannot pass unnoticed.
    for (const line of KEY_LINES[name] ?? []) {
      assert.ok(solutionText.includes(normalise(line)), `the key line "${line}" is not in solutions/${name}: update KEY_LINES`);
    }
  });

  test(`the episode of ${name} gives every exercise a hint, a stronger hint and the solution, folded`, async () => {
    const lab = await loadLab(name);
    const episode = readFileSync(path.join(ROOT_DIR, lab.episode), 'utf8');
    const challenges = episode.split('<Challenge ').slice(1).map((c) => c.slice(0, c.indexOf('</Challenge>')));
    for (const learner of lab.learnerFiles) {
      const where = `exercises/${name}/${learner.file}`;
      const mine = challenges.filter((c) => c.includes(where));
      assert.ok(mine.length > 0, `${lab.episode} has no <Challenge> that names ${where}`);
      for (const challenge of mine) {
        const labels = [...challenge.matchAll(/<Solution(?: label="([^"]*)")?>/g)].map((m) => m[1] ?? 'Show the solution');
        assert.ok(labels.includes('Hint'), `a challenge on ${where} in ${lab.episode} has no <Solution label="Hint">`);
        assert.ok(labels.includes('A stronger hint'), `a challenge on ${where} in ${lab.episode} has no <Solution label="A stronger hint">`);
        assert.ok(labels.includes('Show the solution'), `a challenge on ${where} in ${lab.episode} has no folded solution`);
        assert.ok(labels.indexOf('Hint') < labels.indexOf('A stronger hint') && labels.indexOf('A stronger hint') < labels.lastIndexOf('Show the solution'),
          `a challenge on ${where} in ${lab.episode} gives its help out of order (a hint, a stronger hint, then the solution)`);
      }
    }
  });
}
