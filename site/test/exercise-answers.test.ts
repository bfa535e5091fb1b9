/**
 * An exercise's answer stays in its folded solution (issue 29, "Exercises that make learners think"): no line of a
 * challenge's solution code is printed elsewhere on its episode's page (above the exercise, unfolded) or in the cheat
 * sheet. The text above an exercise teaches its idea; the code is the learner's to write.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const EPISODES = fileURLToPath(new URL('../../episodes/', import.meta.url));

/** A code line without its comment and spacing; blank, comment-only and short lines (a brace, `return out;`) are not an answer. */
function answerLine(line: string): string | null {
  const code = line.replace(/\s\/\/.*$/, '').replace(/\s+/g, ' ').trim();
  return code.length >= 24 && !code.startsWith('//') && !code.startsWith('#') ? code : null;
}

function codeLines(text: string): string[] {
  const lines: string[] = [];
  // Program code only: a shell command in a solution (how to run a profile) is no answer to write.
  for (const block of text.matchAll(/```(?:ts|tsx|js|mjs|cpp|cc|c)\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) {
      const code = answerLine(line);
      if (code !== null) lines.push(code);
    }
  }
  return lines;
}

/** The code lines of each challenge's solution folds, and the page's text outside every challenge. */
export function answersAndRest(source: string): { answers: Map<string, string>; rest: string } {
  const answers = new Map<string, string>();
  for (const challenge of source.matchAll(/<Challenge\b[^>]*\btitle="([^"]*)"[^>]*>([\s\S]*?)<\/Challenge>/g)) {
    for (const fold of challenge[2]!.matchAll(/<Solution\b[^>]*>([\s\S]*?)<\/Solution>/g)) {
      for (const line of codeLines(fold[1]!)) answers.set(line, challenge[1]!);
    }
  }
  // A fold outside a challenge (a sketch above the exercise) is still above it: only the challenge's own folds hide.
  const rest = source.replace(/<Challenge\b[\s\S]*?<\/Challenge>/g, '');
  return { answers, rest };
}

test('the rule finds an answer printed above its exercise, and not a line the two merely share in spirit', () => {
  const page = [
    '```ts',
    'const samples = await reads.shift()!; // the oldest read',
    '```',
    '<Challenge title="Write the pipeline" minutes={5}>',
    '<Solution>',
    '```ts',
    'const samples = await reads.shift()!;',
    'return out;',
    '```',
    '</Solution>',
    '</Challenge>',
  ].join('\n');
  const { answers, rest } = answersAndRest(page);
  assert.deepEqual([...answers.keys()], ['const samples = await reads.shift()!;']);
  assert.deepEqual(codeLines(rest), ['const samples = await reads.shift()!;']);
  assert.deepEqual(codeLines('```ts\n}\nreturn out;\n// const samples = await reads.shift()!;\n```'), []);
});

/** Lines an answer shares with the lab's own code shown on the page, each with why it gives nothing away. */
const SHARED_WITH_LAB_CODE = new Map([
  ['05-event-loop.mdx return deriveRingSync(account);', "the inline baseline's body: the worker runs the lab's own function"],
]);

test("no episode prints an exercise's solution code outside its folds, and the cheat sheet gives none of them", () => {
  const files = readdirSync(EPISODES).filter((f) => /^\d\d-.*\.mdx$/.test(f));
  const cheatSheet = new Set(codeLines(readFileSync(path.join(EPISODES, 'cheat-sheet.mdx'), 'utf8')));
  let answers = 0;
  const leaks: string[] = [];
  for (const file of files) {
    const found = answersAndRest(readFileSync(path.join(EPISODES, file), 'utf8'));
    answers += found.answers.size;
    const outside = new Set(codeLines(found.rest));
    for (const [line, challenge] of found.answers) {
      if (outside.has(line) && !SHARED_WITH_LAB_CODE.has(`${file} ${line}`)) leaks.push(`${file}: "${challenge}"'s answer is printed outside its solution: ${line}`);
      if (cheatSheet.has(line)) leaks.push(`cheat-sheet.mdx gives ${file}'s "${challenge}" answer: ${line}`);
    }
  }
  assert.ok(answers > 40, `the rule sees the challenges' solution code (found ${answers} lines)`);
  assert.deepEqual(leaks, []);
});
