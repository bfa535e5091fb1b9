/**
 * The episode sources as files, for the frame tests that need no build: frontmatter fields read with small,
 * strict patterns (the full schema check runs at build time, src/lib/lesson-schema.ts), and the knowledge check's
 * question arrays evaluated from the page's `export const name = [...];` blocks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import type { KnowledgeQuestion } from '../../src/lib/knowledge-check.ts';
import { buildSchedule, type Schedule } from '../../src/lib/schedule.ts';
import { isPage } from '../../src/lib/sidebar.ts';

export const EPISODES_DIR = fileURLToPath(new URL('../../../episodes/', import.meta.url));

export interface EpisodeFile {
  name: string;
  slug: string;
  source: string;
  /** The text between the opening and closing `---` lines. */
  frontmatter: string;
  isPage: boolean;
}

/** Every .mdx file of episodes/, sorted by name (teaching order). */
export function readEpisodeFiles(dir = EPISODES_DIR): EpisodeFile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.mdx'))
    .sort()
    .map((name) => {
      const source = readFileSync(join(dir, name), 'utf8');
      return {
        name,
        slug: name.slice(0, -'.mdx'.length),
        source,
        frontmatter: /^---\r?\n([\s\S]*?)\r?\n---/.exec(source)?.[1] ?? '',
        isPage: isPage(source),
      };
    });
}

/** A top-level whole-number field such as `teaching: 20`, or undefined when it is missing or not a whole number. */
export function minutesField(frontmatter: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s*(\\d+)\\s*$`, 'm').exec(frontmatter);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The frontmatter's `deepDives` list, written as the course writes it (a strict subset of YAML):
 *   deepDives:
 *     - title: "Threads in native code"
 *       minutes: 8
 * Titles may be quoted ("..." or '...'); an entry without a whole number of minutes gets NaN.
 */
export function deepDivesField(frontmatter: string): { title: string; minutes: number }[] {
  const lines = frontmatter.split(/\r?\n/);
  const start = lines.findIndex((line) => /^deepDives:\s*$/.test(line));
  if (start === -1) return [];
  const items: { title: string; minutes: number }[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const title = /^\s+-\s+title:\s*(.+?)\s*$/.exec(line)?.[1];
    if (title !== undefined) {
      items.push({ title: title.replace(/^(["'])(.*)\1$/, '$2'), minutes: Number.NaN });
      continue;
    }
    const minutes = /^\s+minutes:\s*(\d+)\s*$/.exec(line)?.[1];
    const last = items.at(-1);
    if (minutes !== undefined && last !== undefined) last.minutes = Number(minutes);
  }
  return items;
}

/** A top-level `lab: name` field, or undefined. */
export function labField(frontmatter: string): string | undefined {
  return /^lab:\s*['"]?([a-z0-9-]+)['"]?\s*$/m.exec(frontmatter)?.[1];
}

/** The schedule the site should show, computed from the files' frontmatter (a missing minutes field gives NaN). */
export function scheduleOfFiles(files: readonly EpisodeFile[]): Schedule {
  return buildSchedule(
    files.map((file) => {
      const homework = minutesField(file.frontmatter, 'homework');
      return {
        id: file.slug,
        title: file.slug,
        teaching: minutesField(file.frontmatter, 'teaching') ?? Number.NaN,
        exercises: minutesField(file.frontmatter, 'exercises') ?? Number.NaN,
        deepDives: deepDivesField(file.frontmatter),
        ...(homework === undefined ? {} : { homework }),
      };
    }),
  );
}

/** The number of entries of a top-level YAML list (block "- item" lines or an inline [a, b]); 0 when missing. */
export function listLength(frontmatter: string, field: string): number {
  const lines = frontmatter.split(/\r?\n/);
  const start = lines.findIndex((line) => new RegExp(`^${field}:`).test(line));
  if (start === -1) return 0;
  const inline = /^[^:]+:\s*\[(.*)\]\s*$/.exec(lines[start] as string);
  if (inline) return (inline[1] ?? '').split(',').filter((item) => item.trim() !== '').length;
  let count = 0;
  for (const line of lines.slice(start + 1)) {
    if (/^\s+-\s+\S/.test(line)) count++;
    else if (/^\S/.test(line)) break;
  }
  return count;
}

/**
 * True when the body has a <Challenge> followed by a <Solution> before the next <Challenge> opens (inside the
 * challenge or right after it), i.e. at least one exercise with its solution.
 */
export function hasChallengeWithSolution(source: string): boolean {
  const parts = source.split(/<Challenge[\s>]/).slice(1);
  return parts.some((part) => /<Solution[\s>/]/.test(part));
}

/** The knowledge-check page's question arrays, by export name, evaluated as the plain literals they are. */
export function knowledgeCheckQuestions(source: string): Map<string, KnowledgeQuestion[]> {
  const arrays = new Map<string, KnowledgeQuestion[]>();
  for (const match of source.matchAll(/^export const (\w+) = (\[[\s\S]*?^\]);$/gm)) {
    const [, name, literal] = match;
    if (name === undefined || literal === undefined) continue;
    // A fresh context with no globals: the literal can only build data.
    arrays.set(name, runInNewContext(`(${literal})`, Object.create(null)) as KnowledgeQuestion[]);
  }
  return arrays;
}
