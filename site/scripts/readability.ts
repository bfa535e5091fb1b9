/**
 * The voice measures of issue 45 point 1, per episode, on its core prose: the paragraphs and list items a learner
 * reads first (core sections, not deep dives or homework; outside <InDetail> folds, optional challenges, code,
 * tables, headings and instructor notes). Prints core words (the time budget's count, site/src/lib/time-budget.ts),
 * then for the prose: sentences, words a sentence, semicolons and parenthetical asides a sentence, and the Flesch
 * reading ease (206.835 - 1.015 words/sentence - 84.6 syllables/word; syllables counted as vowel groups, a trailing
 * silent "e" dropped, at least one a word). Usage: node site/scripts/readability.ts [episode.mdx ...]
 * (default: every numbered episode); --show also prints each sentence with a semicolon, a parenthesis
 * or more than 30 words. A reference page in Markdown (.md: a Carpentries episode, a javascript.info
 * article) is measured the same way on its whole text, blockquote markers and kramdown attributes removed; a .txt
 * file is measured whole. The references of issue 45 come from their repositories, e.g.
 * `git show HEAD:_episodes/02-parallel-estimate.md` in hpc-carpentry/hpc-parallel-novice and
 * `git show HEAD:2-ui/99-ui-misc/03-event-loop/article.md` in javascript-tutorial/en.javascript.info.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { formatFixed } from '@parallel-course/core';
import { coreText, coreWords, markdownText, measureProse, proseOf } from '../src/lib/voice.ts';

const here = import.meta.dirname;
const episodes = join(here, '../../episodes');
const show = process.argv.includes('--show');
const args = process.argv.slice(2).filter((arg) => arg !== '--show');
const files = args.length > 0
  ? args
  : readdirSync(episodes).filter((f) => /^\d\d-.*\.mdx$/.test(f)).map((f) => join(episodes, f));

console.log('file | core words | sentences | words/sentence | ;/sentence | (/sentence | Flesch');
for (const file of files) {
  const source = readFileSync(file, 'utf8');
  const isText = file.endsWith('.txt') || file.endsWith('.md');
  const m = measureProse(file.endsWith('.txt') ? source : file.endsWith('.md') ? proseOf(markdownText(source)) : proseOf(coreText(source)));
  const core = isText ? m.words : coreWords(source);
  console.log(
    [basename(file), core, m.sentences, formatFixed(m.wordsPerSentence, 1), formatFixed(m.semicolonsPerSentence, 2), formatFixed(m.parenthesesPerSentence, 2), formatFixed(m.flesch, 0)].join(' | '),
  );
  if (show) for (const sentence of m.flagged) console.log(`  ${sentence}`);
}
