/** Learner files are loaded one way in every lab, with a message that names the file and the missing export. */
import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importLearnerModule, LearnerModuleError } from '../src/learner-module.ts';
import { tempDir } from './support/temp-dir.ts';

/** exercises/demo in a fresh temp root (removed when the test ends). */
function demoDir(t: Parameters<typeof tempDir>[0]): { root: string; implDir: string } {
  const root = tempDir(t, 'learner-module-');
  const implDir = path.join(root, 'exercises', 'demo');
  mkdirSync(implDir, { recursive: true });
  return { root, implDir };
}

test('a learner file without a declared export is refused, naming the file, the export and what it exports', async (t) => {
  const { implDir } = demoDir(t);
  writeFileSync(path.join(implDir, 'schedule.ts'), 'export function runInChunk() { return 1; }\nexport const x = 2;\n');
  writeFileSync(path.join(implDir, 'worker.ts'), 'export function named() {}\n');
  writeFileSync(path.join(implDir, 'broken.ts'), 'export function f( {\n');
  await assert.rejects(importLearnerModule(implDir, { file: 'schedule.ts', exports: ['runInChunks'] }), (error: unknown) => {
    assert.ok(error instanceof LearnerModuleError);
    assert.equal(error.message, 'exercises/demo/schedule.ts must export a function runInChunks (it exports runInChunk): keep the names and signatures the exercise started with');
    return true;
  });
  await assert.rejects(importLearnerModule(implDir, { file: 'worker.ts', exports: ['default'] }), /^LearnerModuleError: exercises\/demo\/worker\.ts must export a default function \(it exports named\)/);
  await assert.rejects(importLearnerModule(implDir, { file: 'broken.ts', exports: ['f'] }), /^LearnerModuleError: exercises\/demo\/broken\.ts could not be loaded: /);
  const ok = await importLearnerModule<{ runInChunk(): number }>(implDir, { file: 'schedule.ts', exports: ['runInChunk'] });
  assert.equal(ok.runInChunk(), 1);
});

test("an import of a file a course package does not export says which entry to import instead", async (t) => {
  // A learner file from before the entries (session 18) imported notImplemented from the harness's lab-definition.ts.
  const { root, implDir } = demoDir(t);
  symlinkSync(fileURLToPath(new URL('../../../node_modules', import.meta.url)), path.join(root, 'node_modules'));
  writeFileSync(path.join(implDir, 'old.ts'), "import { notImplemented } from '@parallel-course/harness/lab-definition.ts';\nexport function f() { notImplemented('f'); }\n");
  writeFileSync(path.join(implDir, 'deep.ts'), "import lab from '@parallel-course/event-loop/lab.ts';\nexport function f() { return lab; }\n");
  writeFileSync(path.join(implDir, 'entry.ts'), "import { notImplemented } from '@parallel-course/harness/learner.ts';\nexport function f() { notImplemented('f'); }\n");
  await assert.rejects(importLearnerModule(implDir, { file: 'old.ts', exports: ['f'] }), (error: unknown) => {
    assert.ok(error instanceof LearnerModuleError);
    assert.match(error.message, /^exercises\/demo\/old\.ts could not be loaded: Package subpath '\.\/lab-definition\.ts' is not defined by "exports" in /);
    assert.match(error.message, /\. Learner code imports the harness through one entry, '@parallel-course\/harness\/learner\.ts': import notImplemented \(and the rest it needs\) there$/);
    return true;
  });
  await assert.rejects(
    importLearnerModule(implDir, { file: 'deep.ts', exports: ['f'] }),
    /could not be loaded: Package subpath '\.\/lab\.ts' is not defined by "exports" .*\. A course package exports by name only the files learner code may import \(its package\.json "exports"\): import what the exercise started with$/,
  );
  const entry = await importLearnerModule<{ f(): void }>(implDir, { file: 'entry.ts', exports: ['f'] });
  assert.throws(() => entry.f(), /not implemented: f/);
});
