/** Learner files are loaded one way in every lab, with a message that names the file and the missing export. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { importLearnerModule, LearnerModuleError } from '../src/learner-module.ts';

test('a learner file without a declared export is refused, naming the file, the export and what it exports', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'learner-module-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const implDir = path.join(root, 'exercises', 'demo');
  mkdirSync(implDir, { recursive: true });
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
