/**
 * The folder the site builds its pages from: the repository's episodes/, or COURSE_EPISODES when set (absolute, or
 * relative to where the command was started: npm's INIT_CWD). The build-check test (test/number-check.test.ts)
 * builds a small temporary folder. astro.config.mjs sets COURSE_REPO_ROOT before anything reads this.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function episodesDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env['COURSE_EPISODES'];
  if (given !== undefined && given.trim() !== '') return `${path.resolve(env['INIT_CWD'] ?? process.cwd(), given.trim())}${path.sep}`;
  const root = env['COURSE_REPO_ROOT'] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  return `${path.join(root, 'episodes')}${path.sep}`;
}
