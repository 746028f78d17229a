/**
 * Moving the eye with the content: when a widget replaces what the visitor was looking at (a step, a message), the
 * new part's heading or message takes the focus and comes into view below the sticky header (the page's
 * scroll-padding-top). Instant, not smooth: the focus ring must land where the screen already is.
 */
export function focusAndReveal(el: HTMLElement | null | undefined): void {
  if (!el) return;
  if (!el.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) el.setAttribute("tabindex", "-1");
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: "start", behavior: "instant" });
}

/** The first heading (or, for a form, its first legend) inside `root`. */
export function firstHeading(root: HTMLElement | null | undefined): HTMLElement | null {
  return root?.querySelector<HTMLElement>("h2, h3, legend") ?? null;
}
