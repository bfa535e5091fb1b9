/**
 * The voice measures of issue 45 point 1 (pure functions; site/scripts/readability.ts prints them and
 * site/test/voice.test.ts holds every episode to the targets): an episode's core prose, the paragraphs and list items a
 * learner reads first (core sections, not deep dives or homework; outside <InDetail> folds, optional challenges,
 * code, tables, headings and instructor notes), measured as words a sentence, semicolons and parenthetical asides a
 * sentence and the Flesch reading ease (206.835 - 1.015 words/sentence - 84.6 syllables/word; syllables counted as
 * vowel groups, a trailing silent "e" dropped, at least one a word).
 */
import { readableText, sectionsOf } from './time-budget.ts';

const IN_DETAIL = /<InDetail\b[^>]*>[\s\S]*?<\/InDetail>/g;

/** The core sections' text of an episode, without folds and optional challenges. */
export function coreText(source: string): string {
  const text = readableText(source);
  return text
    .split(/^(?=## )/m)
    .filter((part) => !/^## .*\n\s*<(DeepDive|Homework)\b/.test(part))
    .map((part) => part.replace(/<Challenge\b[^>]*\boptional\b[^>]*>[\s\S]*?<\/Challenge>/g, '').replace(IN_DETAIL, ''))
    .join('\n');
}

/** Prose only: paragraphs and list items, components reduced to the words they render. */
export function proseOf(core: string): string {
  return core
    .replace(/^\s*(```|~~~)[\s\S]*?^\s*\1.*$/gm, '')
    .replace(/<Measured\b[^>]*\/>/g, '1.0')
    .replace(/<[A-Za-z][^>]*\/>/g, '')
    .replace(/<\/?[A-Za-z][^>]*>/g, '\n\n')
    .split('\n')
    .filter((line) => !/^\s*(\||#|import |export |\{\/\*)/.test(line))
    .join('\n')
    .replace(/`[^`]*`/g, 'code')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,2}/g, '');
}

/** A Markdown page's readable text: no frontmatter, no blockquote markers, no kramdown attribute lines. */
export function markdownText(source: string): string {
  return source
    .replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '')
    .replace(/^(> ?)+/gm, '')
    .replace(/^\{:.*\}\s*$/gm, '')
    .replace(/^!\[[^\]]*\]\([^)]*\)\s*$/gm, '');
}

function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w === '') return 0;
  const groups = w.replace(/e$/, '').match(/[aeiouy]+/g)?.length ?? 0;
  return Math.max(1, groups);
}

export interface VoiceMeasures {
  sentences: number;
  words: number;
  wordsPerSentence: number;
  semicolonsPerSentence: number;
  parenthesesPerSentence: number;
  flesch: number;
  /** Sentences with a semicolon, a parenthesis or more than LONG_SENTENCE words. */
  flagged: string[];
}

/** A sentence longer than this many words is flagged (what to rewrite next). */
const LONG_SENTENCE = 30;

export function measureProse(prose: string): VoiceMeasures {
  const blocks = prose.split(/\n\s*\n|\n\s*[-*] |\n\s*\d+\. /).map((b) => b.replace(/\s+/g, ' ').trim()).filter((b) => /[A-Za-z]/.test(b));
  let sentences = 0;
  let words = 0;
  let syllableCount = 0;
  let semicolons = 0;
  let parentheses = 0;
  const flagged: string[] = [];
  for (const block of blocks) {
    // A sentence ends at . ! ? (or : before a list) followed by a space and a capital, a quote or a digit, or at the block's end.
    const parts = block.split(/(?<=[.!?])\s+(?=["'“(]?[A-Z0-9])/).filter((p) => /[A-Za-z]/.test(p));
    sentences += parts.length;
    for (const part of parts) {
      const tokens = part.match(/\S+/g)?.filter((t) => /[\p{L}\p{N}]/u.test(t)) ?? [];
      words += tokens.length;
      syllableCount += tokens.reduce((sum, t) => sum + syllables(t), 0);
      semicolons += part.match(/;/g)?.length ?? 0;
      parentheses += part.match(/\(/g)?.length ?? 0;
      if (/[;(]/.test(part) || tokens.length > LONG_SENTENCE) flagged.push(`${tokens.length > LONG_SENTENCE ? `[${tokens.length} words] ` : ''}${part}`);
    }
  }
  const s = Math.max(1, sentences);
  const w = Math.max(1, words);
  return {
    sentences,
    words,
    wordsPerSentence: words / s,
    semicolonsPerSentence: semicolons / s,
    parenthesesPerSentence: parentheses / s,
    flesch: 206.835 - 1.015 * (words / s) - 84.6 * (syllableCount / w),
    flagged,
  };
}

/** An episode's core words: the time budget's count (time-budget.ts). */
export function coreWords(source: string): number {
  return sectionsOf(source)
    .filter((section) => section.kind === 'core')
    .reduce((sum, section) => sum + section.words, 0);
}
