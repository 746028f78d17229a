/**
 * Moving the eye with the content: when a widget replaces what the visitor was looking at (a step, a message), the
 * new part's heading or message takes the focus and comes into view below the sticky header (the page's
 * scroll-padding-top) and below any toast on the screen over it (on a phone a toast spans the width: it would cover
 * what was just revealed). `from` is where the view starts when more than `el` should be seen (the card field above
 * a payment error); `el` itself is always brought fully on the screen. Instant, not smooth: the focus ring must land
 * where the screen already is.
 */
export function focusAndReveal(el: HTMLElement | null | undefined, from: HTMLElement | null = null): void {
  if (!el) return;
  if (!el.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) el.setAttribute("tabindex", "-1");
  el.focus({ preventScroll: true });
  const start = from ?? el;
  const line = Math.max(scrollPaddingTop(), toastsBottom(start) + TOAST_GAP);
  window.scrollBy({ top: start.getBoundingClientRect().top - line, behavior: "instant" });
  // The start and the element do not both fit: the element wins.
  const below = el.getBoundingClientRect().bottom - window.innerHeight;
  if (below > 0) window.scrollBy({ top: below, behavior: "instant" });
}

const TOAST_GAP = 8;

function scrollPaddingTop(): number {
  return parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
}

/** The lowest edge of the toasts shown over the element's columns (0 when none): they are fixed at the top. */
function toastsBottom(el: HTMLElement): number {
  const box = el.getBoundingClientRect();
  let bottom = 0;
  for (const toast of document.querySelectorAll<HTMLElement>("#toast-region .toast:not([hidden])")) {
    const t = toast.getBoundingClientRect();
    if (t.height > 0 && t.left < box.right && box.left < t.right) bottom = Math.max(bottom, t.bottom);
  }
  return bottom;
}

/** The first heading (or, for a form, its first legend) inside `root`. */
export function firstHeading(root: HTMLElement | null | undefined): HTMLElement | null {
  return root?.querySelector<HTMLElement>("h2, h3, legend") ?? null;
}

/** A form refused on submit: its first field in error takes the focus, in view with its label (the kit's `.field`). */
export function focusFirstInvalid(form: HTMLElement | null | undefined): void {
  const field = form?.querySelector<HTMLElement>("[aria-invalid='true']");
  focusAndReveal(field, field?.closest<HTMLElement>(".field") ?? null);
}
