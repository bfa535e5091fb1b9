/**
 * Finds the labs: every `labs/<name>/src/lab.ts` except the harness and the core (labs/core: shared code, no lab). Adding a lab means adding a folder;
 * nothing here needs to change.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LabLoadError, UsageError } from './errors.ts';
import type { LabDefinition } from './lab-definition.ts';

/** The repository root: three levels above this file (labs/harness/src). */
export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const NOT_LABS = new Set(['harness', 'core']);

/** Names of the labs in this checkout, sorted. */
export function labNames(rootDir = ROOT_DIR): string[] {
  const labsDir = path.join(rootDir, 'labs');
  return readdirSync(labsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !NOT_LABS.has(d.name) && existsSync(path.join(labsDir, d.name, 'src', 'lab.ts')))
    .map((d) => d.name)
    .sort();
}

/** Loads a lab's definition by name; unknown names and broken modules get a message that says what to do. */
export async function loadLab(name: string, rootDir = ROOT_DIR): Promise<LabDefinition<unknown, unknown>> {
  const names = labNames(rootDir);
  if (!names.includes(name)) {
    throw new UsageError(
      `unknown lab '${name}'. The labs are: ${names.join(', ')}. List them with: npm run lab -- --list`,
    );
  }
  const file = path.join(rootDir, 'labs', name, 'src', 'lab.ts');
  let module: { default?: LabDefinition<unknown, unknown> };
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    throw new LabLoadError(
      `the lab '${name}' could not be loaded from ${path.relative(rootDir, file)}: ${(error as Error).message}\n` +
        `If you edited code it imports (exercises/${name} or solutions/${name}), fix the error above; ` +
        `'npm run typecheck' points at type errors.`,
    );
  }
  const lab = module.default;
  if (!lab || typeof lab !== 'object' || lab.name !== name || typeof lab.cases !== 'function') {
    throw new LabLoadError(`${path.relative(rootDir, file)} must default-export a LabDefinition whose name is '${name}'`);
  }
  return lab;
}
