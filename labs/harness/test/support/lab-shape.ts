/**
 * The common shape of a lab, as a check callable on any repository root (lab-shape.test.ts runs it on every lab of this
 * checkout, new-lab.test.ts on a lab `npm run new-lab` wrote into a copy): the same files, an exercise and a solution
 * with the same files and exports, an episode that names the lab, and a definition the harness can load. Throws an
 * AssertionError naming the first rule the lab breaks.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadLab } from '../../src/lab-registry.ts';
import { checkExports, exportedFunctions } from '../../src/learner-module.ts';
import { resolveHeadline } from '../../src/lab-definition.ts';

/** Source text without comments, whitespace collapsed, a leading `_` of a parameter name dropped (an unused one). */
function normaliseSource(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/\s+/g, ' ')
    .replace(/([(,{] ?)_(\w)/g, '$1$2');
}

/**
 * What a learner file promises its caller, read from its text: every exported declaration of a .ts file (function
 * signatures with parameter and return types, interfaces, types, constants with their type) or every top-level
 * function definition of a .cc file, each as one normalised line, sorted.
 */
function declaredInterface(file: string, text: string): string[] {
  const source = normaliseSource(text);
  const found: string[] = [];
  if (file.endsWith('.cc')) {
    const lines = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const m of lines.matchAll(/^(?![\s#}])([\w:<>*&]+(?:\s+[\w:<>*&]+)*)\s+(\w+)\s*\(([^)]*)\)\s*\{/gm)) {
      found.push(normaliseSource(`${m[1]} ${m[2]}(${m[3]})`));
    }
    return found.sort();
  }
  for (const m of source.matchAll(/export (default )?(async )?function ?(\w*) ?\(([^)]*)\) ?: ?([^{]+?) ?\{/g)) {
    found.push(`${m[1] ?? ''}${m[2] ?? ''}function ${m[3]}(${m[4]}): ${m[5]}`);
  }
  for (const m of source.matchAll(/export (interface \w+ \{[^}]*\}|type \w+ = [^;]+;|const \w+(?: ?: ?[^=]+)?)/g)) found.push(m[1]!.trim());
  return found.sort();
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !d.parentPath.includes('node_modules') && !d.parentPath.includes(`${path.sep}build`))
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)))
    .filter((f) => !f.endsWith('.md'))
    .sort();
}

/** Checks that labs/<name> in `rootDir` has the common shape; throws on the first rule it breaks. */
export async function checkLabShape(name: string, rootDir: string): Promise<void> {
  const labDir = path.join(rootDir, 'labs', name);
  for (const file of ['package.json', 'tsconfig.json', 'README.md', 'src/lab.ts']) {
    assert.ok(existsSync(path.join(labDir, file)), `labs/${name}/${file} is missing`);
  }
  assert.ok(readdirSync(path.join(labDir, 'test')).some((f) => f.endsWith('.test.ts')), `labs/${name}/test has no *.test.ts`);
  const pkg = JSON.parse(readFileSync(path.join(labDir, 'package.json'), 'utf8'));
  assert.equal(pkg.name, `@parallel-course/${name}`);

  const exercise = path.join(rootDir, 'exercises', name);
  const solution = path.join(rootDir, 'solutions', name);
  assert.deepEqual(filesUnder(exercise), filesUnder(solution), 'exercises/ and solutions/ must have the same files');
  const exerciseText = filesUnder(exercise).map((f) => readFileSync(path.join(exercise, f), 'utf8')).join('\n');
  assert.match(exerciseText, /TODO\(learner\)/, 'the exercise marks what the learner writes with TODO(learner)');
  const solutionText = filesUnder(solution).map((f) => readFileSync(path.join(solution, f), 'utf8')).join('\n');
  assert.doesNotMatch(solutionText, /TODO/, 'the solution has no TODO left');

  const lab = await loadLab(name, rootDir);
  // The learner's files: declared once in the lab, the same in both folders, each exporting what the lab calls.
  assert.ok(lab.learnerFiles.length > 0, 'the lab declares its learner files');
  assert.deepEqual(lab.learnerFiles.map((f) => f.file).sort(), filesUnder(exercise), 'exercises/<lab> holds exactly the declared learner files');
  for (const learner of lab.learnerFiles) {
    if (!learner.file.endsWith('.ts')) continue; // kernel.cc is compiled, not imported
    const exported = [];
    for (const folder of [exercise, solution]) {
      const module = (await import(pathToFileURL(path.join(folder, learner.file)).href)) as Record<string, unknown>;
      checkExports(module, learner, path.relative(rootDir, path.join(folder, learner.file)));
      exported.push(exportedFunctions(module));
    }
    assert.deepEqual(exported[0], exported[1], `${learner.file}: the exercise and the solution export the same functions`);
    assert.deepEqual(exported[0], [...learner.exports].sort(), `${learner.file}: the functions it exports are exactly those the lab declares`);
  }
  // The same exports in the same shape: every exported name with its kind (and a function's parameter count), and,
  // read from the text, every exported signature and type (for kernel.cc, its function definitions).
  for (const learner of lab.learnerFiles) {
    const [ex, so] = [exercise, solution].map((folder) => readFileSync(path.join(folder, learner.file), 'utf8'));
    assert.deepEqual(declaredInterface(learner.file, ex!), declaredInterface(learner.file, so!),
      `${learner.file}: the exercise and the solution declare the same exports with the same signatures`);
    assert.ok(declaredInterface(learner.file, so!).length > 0, `${learner.file}: no exported declaration found (the reader of signatures missed it)`);
    if (!learner.file.endsWith('.ts')) continue;
    const shapes = [];
    for (const folder of [exercise, solution]) {
      const module = (await import(pathToFileURL(path.join(folder, learner.file)).href)) as Record<string, unknown>;
      shapes.push(Object.keys(module).sort().map((name) => {
        const value = module[name];
        return typeof value === 'function' ? `${name}: function of ${value.length} parameters` : `${name}: ${typeof value}`;
      }));
    }
    assert.deepEqual(shapes[0], shapes[1], `${learner.file}: the exercise and the solution export the same names, kinds and arities`);
  }
  for (const variant of lab.variants) {
    for (const file of variant.source.match(/<impl>\/[\w.-]+/g) ?? []) {
      assert.ok(lab.learnerFiles.some((f) => `<impl>/${f.file}` === file), `variant ${variant.name} names ${file}, which is not a declared learner file`);
    }
    if (variant.shipsFailing) {
      // --status reads this failure as the exercise only while the shipped file holds its TODO(learner).
      const file = variant.source.match(/<impl>\/([\w.-]+)/)?.[1];
      assert.ok(file && readFileSync(path.join(rootDir, 'exercises', name, file), 'utf8').includes('TODO(learner)'), `variant ${variant.name} ships failing: its exercise file holds a TODO(learner)`);
    }
  }
  assert.ok(lab.variants.some((v) => v.name === lab.baseline), 'the baseline is one of the variants');
  for (const p of [1, 2, 64]) {
    const ctx = { impl: 'solution' as const, implDir: solution, rootDir, quick: true, availableParallelism: p, seed: 1 };
    const headline = resolveHeadline(lab.headline, ctx);
    assert.ok(lab.variants.some((v) => v.name === headline.variant), 'the headline is one of the variants');
  }
  // Last, so that a lab that lacks only its episode (a new one from `npm run new-lab`) has passed every other rule.
  assert.ok(existsSync(path.join(rootDir, lab.episode)), `its episode ${lab.episode} exists`);
  // An episode names its lab in its frontmatter; a second lab taught in the same episode (task-graph in episode 06)
  // is named by the <RunLab> that shows how to run it.
  const episodeText = readFileSync(path.join(rootDir, lab.episode), 'utf8');
  assert.ok(episodeText.includes(`lab: ${name}`) || episodeText.includes(`<RunLab lab="${name}"`), 'the episode names the lab in its frontmatter or in a <RunLab>');
}
