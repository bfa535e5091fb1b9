/**
 * Two accessibility fixes that need the rendered page (issue 29), run once the document is parsed:
 *  - Starlight's search button is labelled "Search the course" while it also shows "Ctrl K": the accessible name
 *    must contain the exposed text (axe: label-content-name-mismatch); the shortcut is in aria-keyshortcuts, so its
 *    <kbd> is hidden from assistive technology like the button's visible label already is;
 *  - Expressive Code makes a code block that scrolls sideways a focusable role="region", but unnamed and only after
 *    an idle callback: several unnamed regions on one page are duplicate landmarks. Here each scrolling block gets
 *    its region at once, with a name of its own ("Code example N, <language>"), and keeps the name if Expressive
 *    Code adds or removes the role later on a resize.
 */
function labelSearchButton(): void {
  // The shortcut is already announced through aria-keyshortcuts; its <kbd> text is hidden from the accessible text
  // like the button's visible label, so the accessible name ("Search the course") is the whole of what is exposed.
  for (const kbd of document.querySelectorAll<HTMLElement>('button[data-open-modal] > kbd')) kbd.setAttribute('aria-hidden', 'true');
}

function nameCodeRegions(): void {
  const blocks = [...document.querySelectorAll<HTMLElement>('.expressive-code pre')];
  blocks.forEach((pre, index) => {
    const language = pre.dataset['language'];
    const name = `Code example ${index + 1}${language ? `, ${language}` : ''}`;
    const sync = () => {
      if (pre.getAttribute('role') === 'region') pre.setAttribute('aria-label', name);
      else pre.removeAttribute('aria-label');
    };
    if (pre.scrollWidth > pre.clientWidth && !pre.hasAttribute('tabindex')) {
      pre.setAttribute('tabindex', '0');
      pre.setAttribute('role', 'region');
    }
    sync();
    new MutationObserver(sync).observe(pre, { attributes: true, attributeFilter: ['role'] });
  });
}

labelSearchButton();
nameCodeRegions();
