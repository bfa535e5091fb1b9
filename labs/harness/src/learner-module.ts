/**
 * The one way a lab loads the learner's code: import a file of exercises/<lab> (or solutions/<lab>) and check that it
 * exports every function the lab declares (LabDefinition.learnerFiles), with a message that names the file, the
 * missing export and what the file does export. A piscina worker file declares `default`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LearnerModuleError } from './errors.ts';

export { LearnerModuleError };

/** A learner file and the functions it must export (`default` for a worker file's default export). */
export interface LearnerFile {
  file: string;
  exports: readonly string[];
}

/** `exercises/<lab>/<file>` as the learner sees it, from the implementation folder's absolute path. */
export function learnerPath(implDir: string, file: string): string {
  return `${path.basename(path.dirname(implDir))}/${path.basename(implDir)}/${file}`;
}

/** The names a module exports that are functions, sorted (`default` included). */
export function exportedFunctions(module: Record<string, unknown>): string[] {
  return Object.keys(module)
    .filter((name) => typeof module[name] === 'function')
    .sort();
}

/** Throws LearnerModuleError when `module` lacks one of `exports` as a function. */
export function checkExports(module: Record<string, unknown>, learner: LearnerFile, where: string): void {
  const missing = learner.exports.filter((name) => typeof module[name] !== 'function');
  if (missing.length === 0) return;
  const has = exportedFunctions(module);
  throw new LearnerModuleError(
    `${where} must export ${missing.map((m) => (m === 'default' ? 'a default function' : `a function ${m}`)).join(' and ')}` +
      ` (it exports ${has.length ? has.join(', ') : 'no functions'}): keep the names and signatures the exercise started with`,
  );
}

/** Imports `learner.file` from `implDir` and checks its exports. */
export async function importLearnerModule<T>(implDir: string, learner: LearnerFile): Promise<T> {
  const where = learnerPath(implDir, learner.file);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path.join(implDir, learner.file)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new LearnerModuleError(`${where} could not be loaded: ${(error as Error).message}${notExportedFix(error)}`);
  }
  checkExports(module, learner, where);
  return module as T;
}

/**
 * The fix for an import of a file a course package does not export (node's ERR_PACKAGE_PATH_NOT_EXPORTED): a learner
 * file written before the packages had their entries imported the harness's files one by one
 * (docs/architecture.md, "The harness's face"). '' for any other error.
 */
function notExportedFix(error: unknown): string {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') return '';
  const message = error instanceof Error ? error.message : '';
  if (/[\\/](?:@parallel-course|labs)[\\/]harness[\\/]package\.json/.test(message)) {
    return ". Learner code imports the harness through one entry, '@parallel-course/harness/learner.ts': import notImplemented (and the rest it needs) there";
  }
  return ". A course package exports by name only the files learner code may import (its package.json \"exports\"): import what the exercise started with";
}
