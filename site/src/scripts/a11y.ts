/**
 * Two accessibility fixes that need the rendered page (issue 29), run once the document is parsed:
 *  - Starlight's search button is labelled "Search the course" while it also shows "Ctrl K" (in adjacent <kbd>s with
 *    no space between): the accessible name must contain the visible text (axe: label-content-name-mismatch), so the
 *    words get their spaces and the label gets the shortcut;
 *  - Expressive Code makes a code block that scrolls sideways a focusable role="region", but unnamed and only after
 *    an idle callback: several unnamed regions on one page are duplicate landmarks. Here each scrolling block gets
 *    its region at once, with a name of its own ("Code example N, <language>"), and keeps the name if Expressive
 *    Code adds or removes the role later on a resize.
 */
function labelSearchButton(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-open-modal]')) {
    // Separate the words the button shows ("Search the course", "Ctrl", "K" sit in adjacent elements), then name the
    // button with all of them, so its accessible name contains its visible text at every width.
    for (const element of button.querySelectorAll('span, kbd')) {
      if (element.previousSibling && element.previousSibling.nodeType !== Node.TEXT_NODE) element.before(document.createTextNode(' '));
    }
    const words = [...button.querySelectorAll('span, kbd kbd')].map((e) => e.textContent?.trim() ?? '').filter(Boolean);
    const label = button.getAttribute('aria-label') ?? '';
    const shortcut = words.filter((w) => !label.includes(w)).join(' ');
    if (shortcut !== '') button.setAttribute('aria-label', `${label} ${shortcut}`.trim());
  }
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
