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

/**
 * Answers in other words (issue 45): the objectives at the top of a page and the core text above an exercise must not
 * state what the exercise asks the learner to find. Each entry names the exercise and phrases of its answer, as the
 * page once paraphrased them; the text a learner reads before the exercise (the frontmatter's objectives, and the core
 * text above it: "in detail" folds, deep dives and other challenges' folds left out) may contain none of them.
 */
const PARAPHRASED_ANSWERS: { file: string; challenge: string; phrases: RegExp[] }[] = [
  // 03:18 named both bugs that "Find the two bugs" asks for.
  { file: '03-execution-models.mdx', challenge: 'Find the two bugs', phrases: [/stale state in a reused worker/i, /sum in completion order/i] },
  // 07:184-187 said where a small call's time goes (the binding's checks, each a Node-API call).
  { file: '07-native-kernel.mdx', challenge: 'Where does the time of a small call go?', phrases: [/is a Node-API call/i] },
  // 05:245 answered the pool size for a latency budget (workers past the CPUs only time-slice them).
  { file: '05-event-loop.mdx', challenge: 'Design: meet a latency budget', phrases: [/only time-slice the same cores/i, /Workers beyond P have only P CPUs/i] },
  // 06:109-113 gave the chunk size the design challenge asks the learner to choose and defend.
  { file: '06-task-granularity.mdx', challenge: 'Design: choose a chunk size and defend it', phrases: [/headline of this lab is the pool at \*\*4 tasks per worker/i, /2\^20 per task/] },
  // 08:140 said which batch a server and an offline job pick.
  { file: '08-gpu-batching.mdx', challenge: 'Design: the batch size for a latency budget', phrases: [/picks the smallest batch\s+past the knee/i] },
  // The chunked handler's trap: the way of waiting that lets I/O in is the exercise, not the text above it.
  { file: '05-event-loop.mdx', challenge: 'Write the chunked handler', phrases: [/waiting for a `setImmediate` callback ends the\s+current turn/i] },
];

/** The text a learner reads before a challenge: the objectives, and the core text above it without folds. */
export function readBefore(source: string, challenge: string): { objectives: string; above: string } {
  const objectives = /^objectives:\n((?:\s+- .*\n)+)/m.exec(source)?.[1] ?? '';
  const at = source.indexOf(`<Challenge title="${challenge}"`);
  if (at < 0) throw new Error(`no challenge "${challenge}"`);
  const body = source.slice(source.indexOf('\n---', 4) + 4, at);
  const above = body
    .split(/^(?=## )/m)
    .filter((section) => !/^## .*\n\s*<DeepDive\b/.test(section))
    .join('')
    .replace(/<Challenge\b[\s\S]*?<\/Challenge>/g, '')
    .replace(/<InDetail\b[\s\S]*?<\/InDetail>/g, '')
    .replace(/<InstructorNote>[\s\S]*?<\/InstructorNote>/g, '');
  return { objectives, above };
}

test('the rule for paraphrased answers sees an objective and the core text above, not folds or deep dives', () => {
  const page = [
    '---',
    'objectives:',
    '  - Find the stale state in a worker.',
    'keypoints:',
    '  - x',
    '---',
    'The cause is a stale cache.',
    '<InDetail title="t">the completion order matters</InDetail>',
    '## Deeper',
    '<DeepDive minutes={2} />',
    'completion order again',
    '## Core',
    '<Challenge title="Find the two bugs" minutes={5}>?</Challenge>',
  ].join('\n');
  const { objectives, above } = readBefore(page, 'Find the two bugs');
  assert.match(objectives, /stale state/);
  assert.match(above, /stale cache/);
  assert.doesNotMatch(above, /completion order/);
});

test('no objective and no core text above an exercise gives its answer in other words (issue 45)', () => {
  const leaks: string[] = [];
  for (const { file, challenge, phrases } of PARAPHRASED_ANSWERS) {
    const { objectives, above } = readBefore(readFileSync(path.join(EPISODES, file), 'utf8'), challenge);
    for (const phrase of phrases) {
      if (phrase.test(objectives)) leaks.push(`${file}: an objective answers "${challenge}" (${phrase})`);
      if (phrase.test(above)) leaks.push(`${file}: the core text above "${challenge}" answers it (${phrase})`);
    }
  }
  assert.deepEqual(leaks, []);
});
