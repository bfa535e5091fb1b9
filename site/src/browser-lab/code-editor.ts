/**
 * The in-page code editor (CodeMirror 6): JavaScript or TypeScript highlighting, a monospace font, line numbers,
 * Tab indents and Escape then Tab leaves the editor (CodeMirror's tab-focus mode), the learner's draft kept in
 * localStorage per exercise, a reset to the starting code, and an error shown with its line and column (the line
 * marked). It enhances a plain <textarea>, which stays the source of truth for the labs (its value follows every
 * edit) and is what a browser without JavaScript shows.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import { oneDarkHighlightStyle } from '@codemirror/theme-one-dark';
import { Decoration, drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers, ViewPlugin, type DecorationSet, type ViewUpdate } from '@codemirror/view';

/** Where an error is in the learner's code: 1-based line and column, as editors and stack traces count them. */
export interface CodePosition {
  line: number;
  column: number;
}

export interface CodeEditorOptions {
  /** The textarea the editor replaces; its text is the starting code. */
  textarea: HTMLTextAreaElement;
  /** The starting code (Reset brings it back). */
  starter: string;
  /** localStorage key of the learner's draft: one per lab and exercise. */
  storageKey: string;
  language: 'javascript' | 'typescript';
  /** The element an error is written to (role="alert" in the component). */
  errorLine: HTMLElement;
  /** Called after every change of the text (the draft is already saved). */
  onChange?(text: string): void;
}

export interface CodeEditor {
  view: EditorView;
  /** True when the editor opened on the learner's saved draft, not the starting code. */
  restored: boolean;
  text(): string;
  /** Back to the starting code; the saved draft is removed. */
  reset(): void;
  /** Shows `message` and marks `at`'s line (null clears both). */
  showError(message: string | null, at?: CodePosition | null): void;
}

/** The key under which a lab's exercise keeps the learner's draft. */
export function draftKey(lab: string, exercise: string): string {
  return `parallel-course:draft:${lab}:${exercise}`;
}

function readDraft(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage off (private mode, blocked cookies): the editor still works, without drafts.
  }
}

function writeDraft(key: string, text: string | null): void {
  try {
    if (text === null) localStorage.removeItem(key);
    else localStorage.setItem(key, text);
  } catch {
    // Full or off: the draft lives only in this page.
  }
}

const setErrorLine = StateEffect.define<number | null>();
const errorLineMark = Decoration.line({ class: 'cm-bl-error-line', attributes: { 'aria-invalid': 'true' } });

/** The marked line (the error's), cleared by the next edit. */
const errorLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = tr.docChanged ? Decoration.none : marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setErrorLine)) continue;
      next = effect.value === null ? Decoration.none : Decoration.set([errorLineMark.range(tr.state.doc.line(effect.value).from)]);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Extra indent of a wrapped line's continuation, in columns (beyond the line's own leading spaces). */
const HANGING_INDENT = 2;

/** Each visible line's decoration: wrapped parts start under its code, HANGING_INDENT further in (a hanging indent). */
function hangingIndents(view: EditorView): DecorationSet {
  const marks = [];
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = view.state.doc.lineAt(pos);
      const lead = /^[ \t]*/.exec(line.text)![0].replace(/\t/g, ' '.repeat(view.state.tabSize)).length + HANGING_INDENT;
      // cm-line's own left padding is 6px: kept, and the first line's start unchanged by the negative text-indent.
      marks.push(Decoration.line({ attributes: { style: `padding-left: calc(${lead}ch + 6px); text-indent: -${lead}ch` } }).range(line.from));
      pos = line.to + 1;
    }
  }
  return Decoration.set(marks);
}

const hangingIndent = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = hangingIndents(view);
    }
    update(update: ViewUpdate) {
      if (update.docChanged || update.viewportChanged) this.decorations = hangingIndents(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

const theme = EditorView.theme({
  '&': { fontSize: '0.875rem', border: '1px solid var(--sl-color-gray-5)', borderRadius: '0.25rem', backgroundColor: 'var(--sl-color-black)' },
  '&.cm-focused': { outline: '2px solid var(--sl-color-accent)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'var(--__sl-font-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace)', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--sl-color-white)' },
  // Colours that pass WCAG AA contrast in both themes (axe checks them in the editor test).
  '.cm-gutters': { backgroundColor: 'var(--sl-color-gray-6)', color: 'var(--sl-color-gray-2)', borderRight: '1px solid var(--sl-color-gray-5)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--sl-color-accent) 5%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent', color: 'var(--sl-color-white)', fontWeight: '600' },
  '.cm-bl-error-line': { backgroundColor: 'color-mix(in srgb, var(--sl-color-red, #d33) 25%, transparent)', textDecoration: 'underline wavy var(--sl-color-red, #d33)' },
});

/** The code's colours for the site's theme (Starlight's `data-theme` on <html>): light tokens on a dark page are unreadable. */
function highlightFor(theme: string | undefined): Extension {
  return syntaxHighlighting(theme === 'dark' ? oneDarkHighlightStyle : defaultHighlightStyle, { fallback: true });
}

/** Replaces `options.textarea` with CodeMirror, restoring the learner's saved draft if there is one. */
export function mountCodeEditor(options: CodeEditorOptions): CodeEditor {
  const { textarea, starter, storageKey, errorLine } = options;
  const draft = readDraft(storageKey);
  const initial = draft ?? textarea.value;
  textarea.value = initial;
  const highlighting = new Compartment();
  const label = textarea.getAttribute('aria-label') ?? textarea.closest('label')?.firstChild?.textContent?.trim() ?? 'Code';
  const extensions: Extension[] = [
    lineNumbers(),
    highlightActiveLineGutter(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    highlightActiveLine(),
    highlighting.of(highlightFor(document.documentElement.dataset['theme'])),
    javascript({ typescript: options.language === 'typescript' }),
    // Long lines wrap (a wrapped line has no number of its own): on a 390 px phone the code stays in view without a
    // region to scroll sideways, and the editor grows with the code instead of scrolling inside the page.
    EditorView.lineWrapping,
    hangingIndent,
    // Tab indents; Escape then Tab moves focus on (CodeMirror's tab-focus mode, built into the view), so the
    // editor never traps keyboard users. The hint under the editor says so.
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
    errorLineField,
    theme,
    EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': errorLine.id }),
    EditorView.updateListener.of((update) => {
      if (!update.docChanged) return;
      const text = update.state.doc.toString();
      textarea.value = text;
      writeDraft(storageKey, text === starter ? null : text);
      errorLine.textContent = '';
      options.onChange?.(text);
    }),
  ];
  const view = new EditorView({ state: EditorState.create({ doc: initial, extensions }) });
  textarea.hidden = true;
  textarea.after(view.dom);
  // The theme switch (Starlight's select) changes data-theme at any time: the colours follow.
  new MutationObserver(() => view.dispatch({ effects: highlighting.reconfigure(highlightFor(document.documentElement.dataset['theme'])) })).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  const editor: CodeEditor = {
    view,
    restored: draft !== null && draft !== starter,
    text: () => view.state.doc.toString(),
    reset() {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: starter } });
      writeDraft(storageKey, null);
    },
    showError(message, at = null) {
      errorLine.textContent = message ?? '';
      const line = at && at.line >= 1 && at.line <= view.state.doc.lines ? at.line : null;
      view.dispatch({ effects: setErrorLine.of(message === null ? null : line) });
      if (line !== null) view.dispatch({ effects: EditorView.scrollIntoView(view.state.doc.line(line).from, { y: 'center' }) });
    },
  };
  return editor;
}
