/**
 * The learner's own words, kept with the run: `notes.md` in the run folder, written once from a template with
 * prompts and never overwritten. The report reads the sections back; prompts (HTML comments) are left out.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UnsafeFileError } from '../errors.ts';
import { writeFileAtomic } from './results-writer.ts';
import { readTextFileSafely } from './safe-read.ts';

export const NOTES_FILE = 'notes.md';

/** notes.md is prose: 1 MiB is hundreds of pages, and a bigger file is refused before it is read. */
export const MAX_NOTES_BYTES = 1024 * 1024;

/** The sections of notes.md, in order, with the prompt under each heading. */
export const NOTE_SECTIONS = [
  { key: 'bottleneck', heading: 'Bottleneck', prompt: 'Where does the time go in the baseline, and what evidence shows it (the times table, the event-loop delay, a profile)?' },
  { key: 'hypothesis', heading: 'Hypothesis', prompt: 'What did you change to attack it, and what speedup did you expect before measuring? Why that number (what stays serial)?' },
  { key: 'whatChanged', heading: 'What changed', prompt: 'The code you changed, in a sentence or two: file, function, technique.' },
  { key: 'interpretation', heading: 'Interpretation', prompt: 'Did the measurement confirm the hypothesis? Explain the gap between prediction and measurement using efficiency and the serial fraction.' },
  { key: 'nextSteps', heading: 'Next steps', prompt: 'What would you try next, and what would you measure to decide?' },
] as const;

export type NoteKey = (typeof NOTE_SECTIONS)[number]['key'];
export type Notes = Record<NoteKey, string | null>;

/** The template for a run of `lab` started at `startedAt`. */
export function notesTemplate(lab: string, startedAt: string): string {
  return [
    `# Notes on the ${lab} run of ${startedAt}`,
    '',
    'Write in your own words under each heading. The hints in <!-- --> are left out of the report.',
    '`npm run report -- <this folder>` puts these notes in your optimisation report. The harness never overwrites this file.',
    '',
    ...NOTE_SECTIONS.flatMap((s) => [`## ${s.heading}`, '', `<!-- ${s.prompt} -->`, '', '']),
  ].join('\n');
}

/** Writes notes.md into `runDir` unless it exists. Returns the path and whether it was created now. */
export function ensureNotes(runDir: string, lab: string, startedAt: string): { file: string; created: boolean } {
  const file = path.join(runDir, NOTES_FILE);
  if (existsSync(file)) return { file, created: false };
  try {
    writeFileAtomic(file, notesTemplate(lab, startedAt));
  } catch (error) {
    // Another process created it between the check and the write: theirs stays.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { file, created: false };
    throw error;
  }
  return { file, created: true };
}

/** Parses notes.md: the text under each known heading, prompts removed, null when nothing was written. */
export function parseNotes(text: string): Notes {
  const notes = Object.fromEntries(NOTE_SECTIONS.map((s) => [s.key, null])) as Notes;
  const withoutPrompts = text.replace(/<!--[\s\S]*?-->/g, '');
  const parts = withoutPrompts.split(/^##[ \t]+(.+?)[ \t]*$/m);
  // parts: [preamble, heading1, body1, heading2, body2, ...]
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const heading = (parts[i] ?? '').trim().toLowerCase();
    const section = NOTE_SECTIONS.find((s) => s.heading.toLowerCase() === heading);
    const body = (parts[i + 1] ?? '').trim();
    if (section && body !== '') notes[section.key] = body;
  }
  return notes;
}

/**
 * The notes of a run folder, or all-null notes when it has no notes.md. A notes.md that is not a regular file or is
 * over MAX_NOTES_BYTES throws UnsafeFileError (safe-read.ts) rather than hang or exhaust memory.
 */
export function readNotes(runDir: string): Notes {
  const file = path.join(runDir, NOTES_FILE);
  try {
    return parseNotes(readTextFileSafely(file, { capBytes: MAX_NOTES_BYTES, what: 'notes.md', fix: 'make it a plain text file of your notes, or delete it to get a fresh template' }));
  } catch (error) {
    if (error instanceof UnsafeFileError && error.code === 'FILE_NOT_FOUND') return parseNotes('');
    throw error;
  }
}
