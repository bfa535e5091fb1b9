/**
 * The results viewer's page parts (ResultsViewer.astro's `data-rv-*` elements), found once at mount. In: the
 * viewer's root element. Out: every part by name, or null when the markup lacks one (the viewer then does nothing).
 */

export interface ViewerElements {
  fileInput: HTMLInputElement;
  labPick: HTMLElement;
  labSelect: HTMLSelectElement;
  note: HTMLElement;
  errorBox: HTMLElement;
  compareBox: HTMLElement;
  compareSummary: HTMLElement;
  compareTable: HTMLElement;
  caveatsBox: HTMLElement;
  caveatList: HTMLElement;
  warningBox: HTMLElement;
  output: HTMLElement;
  viewPick: HTMLElement;
  viewSelect: HTMLSelectElement;
  source: HTMLElement;
  title: HTMLElement;
  summary: HTMLElement;
  headline: HTMLElement;
  workersBox: HTMLElement;
  workersCanvas: HTMLCanvasElement;
  otherBox: HTMLElement;
  otherCanvas: HTMLCanvasElement;
  sweepsHolder: HTMLElement;
  tableHolder: HTMLElement;
  besideBox: HTMLElement;
  besideSummary: HTMLElement;
  besideTable: HTMLElement;
}

/** Each part's selector in ResultsViewer.astro. */
const SELECTORS: Record<keyof ViewerElements, string> = {
  fileInput: '[data-rv-file]',
  labPick: '[data-rv-lab-pick]',
  labSelect: '[data-rv-lab]',
  note: '[data-rv-note]',
  errorBox: '[data-rv-error]',
  compareBox: '[data-rv-compare]',
  compareSummary: '[data-rv-compare-summary]',
  compareTable: '[data-rv-compare-table]',
  caveatsBox: '[data-rv-caveats]',
  caveatList: '[data-rv-caveat-list]',
  warningBox: '[data-rv-warning]',
  output: '[data-rv-output]',
  viewPick: '[data-rv-view-pick]',
  viewSelect: '[data-rv-view]',
  source: '[data-rv-source]',
  title: '[data-rv-title]',
  summary: '[data-rv-summary]',
  headline: '[data-rv-headline]',
  workersBox: '[data-rv-workers-box]',
  workersCanvas: '[data-rv-workers-chart]',
  otherBox: '[data-rv-other-box]',
  otherCanvas: '[data-rv-other-chart]',
  sweepsHolder: '[data-rv-sweeps]',
  tableHolder: '[data-rv-tables]',
  besideBox: '[data-rv-beside]',
  besideSummary: '[data-rv-beside-summary]',
  besideTable: '[data-rv-beside-table]',
};

export function findViewerElements(root: HTMLElement): ViewerElements | null {
  const found: Partial<Record<keyof ViewerElements, HTMLElement>> = {};
  for (const [name, selector] of Object.entries(SELECTORS) as [keyof ViewerElements, string][]) {
    const part = root.querySelector<HTMLElement>(selector);
    if (part === null) return null;
    found[name] = part;
  }
  // Every key was found above; the tags are ResultsViewer.astro's (an <input>, two <select>s, two <canvas>es).
  return found as ViewerElements;
}
