/**
 * An in-page lab's coding exercise: the code editor (code-editor.ts) on the section's `[data-bl-code]` textarea,
 * its Reset button, and the two hooks lab-ui.ts calls around a run: before it, the learner's code is tried once in
 * a worker with a time limit (learner-code.ts) and a syntax error, an exception or a call that never ends stops the
 * run with its line and column shown and marked; after it, a failure of the learner's case is shown the same way.
 */
import { draftKey, mountCodeEditor, type CodeEditor } from './code-editor.ts';
import type { Results } from './core-adapter.ts';
import { describeProblem, LEARNER_TIME_LIMIT_MS, positionInMessage, TimeLimitError, tryLearnerCode } from './learner-code.ts';
import type { RunHooks } from './lab-ui.ts';

export interface ExerciseSpec {
  /** The exercise's name in the draft key (one draft per lab and exercise). */
  key: string;
  language: 'javascript' | 'typescript';
  /** The function the learner's code defines, and one call to try it with before a run. */
  fnName: string;
  args: readonly unknown[];
  /** How the worker calls the function (learner-code.ts, TryOptions.harness); a plain call when absent. */
  harness?: string;
  /** The variant under which the lab runs the learner's code (default `your-handler`, event-loop's). */
  variant?: string;
  /** The part (the section's `[data-bl-part]` select) the exercise belongs to: hidden and not tried in the others. */
  part?: string;
}

/** The variant under which a lab runs the learner's code when its spec names none (event-loop's). */
const LEARNER_VARIANT = 'your-handler';

/** A problem that says the exercise is not written yet: shown, but the lab's own cases still run. */
const NOT_IMPLEMENTED = /^(\w*Error: )?not implemented: /;

/** Mounts the editor in `root` (a lab's section) and returns the hooks for its runs, or null without an exercise. */
export function mountExercise(root: HTMLElement, lab: string, spec: ExerciseSpec): RunHooks | null {
  const textarea = root.querySelector<HTMLTextAreaElement>('[data-bl-code]');
  const errorLine = root.querySelector<HTMLElement>('[data-bl-code-error]');
  const draftNote = root.querySelector<HTMLElement>('[data-bl-draft]');
  if (!textarea || !errorLine) return null;
  // The starting code is the textarea's own text as the page was built (defaultValue), whatever a draft holds.
  const starter = textarea.defaultValue;
  const editor: CodeEditor = mountCodeEditor({
    textarea,
    starter,
    storageKey: draftKey(lab, spec.key),
    language: spec.language,
    errorLine,
    onChange() {
      if (draftNote) draftNote.textContent = 'Your draft is kept in this browser.';
      root.dispatchEvent(new Event('bl-code-change'));
    },
  });
  if (draftNote) draftNote.textContent = editor.restored ? 'Your draft from this browser was restored; Reset brings back the starting code.' : '';
  root.querySelector<HTMLButtonElement>('[data-bl-reset]')?.addEventListener('click', () => {
    editor.reset();
    editor.showError(null);
    if (draftNote) draftNote.textContent = 'Back to the starting code; your draft was removed.';
  });
  const hint = root.querySelector<HTMLElement>('[data-bl-limit]');
  if (hint) hint.textContent = String(LEARNER_TIME_LIMIT_MS / 1000);
  // An exercise of one part: shown with that part only, and the other parts' runs leave the code alone.
  const select = root.querySelector<HTMLSelectElement>('[data-bl-part]');
  const inPart = (): boolean => spec.part === undefined || select?.value === spec.part;
  const box = root.querySelector<HTMLElement>('.bl-exercise');
  const showPart = (): void => {
    if (box) box.hidden = !inPart();
  };
  showPart();
  select?.addEventListener('change', showPart);
  return {
    async beforeRun(signal) {
      if (!inPart()) return null;
      editor.showError(null);
      const tried = await tryLearnerCode(editor.text(), { fnName: spec.fnName, args: [...spec.args], signal, ...(spec.harness !== undefined ? { harness: spec.harness } : {}) });
      if (signal.aborted) return null;
      if (!('problem' in tried)) return null;
      editor.showError(describeProblem(tried.problem), tried.problem.at);
      // Not written yet: said under the editor, and the run goes on (the learner's case fails its check, kindly).
      if (tried.problem.kind === 'runtime' && NOT_IMPLEMENTED.test(tried.problem.message)) return null;
      return `Your code has a problem, so the run did not start: ${describeProblem(tried.problem)}.`;
    },
    afterRun(results: Results | null, error: unknown) {
      if (!inPart()) return;
      // A run ended by the learner's code (a call past the time limit while samples were sized or timed).
      if (error instanceof TimeLimitError) {
        editor.showError(error.message, null);
        return;
      }
      const failed = results?.correctness.find((c) => c.variant === (spec.variant ?? LEARNER_VARIANT) && !c.passed);
      if (!failed?.reason) return;
      editor.showError(`Your code failed the check: ${failed.reason.replace(/^error: /, '')}`, positionInMessage(failed.reason));
    },
  };
}
