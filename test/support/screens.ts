import type { Page } from "playwright-core";

/**
 * Links and controls smaller than 24 × 24 CSS px (WCAG 2.2, 2.5.8), as readable lines. A control wrapped in its label
 * counts the label's box (a tap on the label works it); a link inside a sentence is the criterion's own exception.
 */
export async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const small: string[] = [];
    const targets = document.querySelectorAll<HTMLElement>("a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]");
    for (const el of targets) {
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") continue;
      let box = el.getBoundingClientRect();
      // Not drawn (visually hidden skip links until focused, closed menus).
      if (box.width <= 2 || box.height <= 2) continue;
      if (el.closest("[hidden], dialog:not([open]), [aria-hidden='true']")) continue;
      const label = el.closest("label");
      if (label && label !== el) box = label.getBoundingClientRect();
      const inSentence = style.display === "inline" && el.tagName === "A" && (el.parentElement?.textContent ?? "").trim().length > (el.textContent ?? "").trim().length + 2;
      if (inSentence) continue;
      if (box.width < 24 || box.height < 24) {
        const name = (el.getAttribute("aria-label") ?? el.textContent ?? el.getAttribute("name") ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
        small.push(`${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ")[0]}` : ""} "${name}" ${Math.round(box.width)}×${Math.round(box.height)}`);
      }
    }
    return small;
  });
}

/** Where the focus is and whether it is on screen: the focused element's tag, text and top/bottom in the viewport. */
export async function focusSeen(page: Page): Promise<{ tag: string; className: string; text: string; top: number; bottom: number; onScreen: boolean; scrollY: number }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const box = el?.getBoundingClientRect();
    const top = box?.top ?? -1;
    const bottom = box?.bottom ?? -1;
    return {
      tag: el?.tagName.toLowerCase() ?? "",
      className: typeof el?.className === "string" ? el.className : "",
      text: (el?.innerText ?? "").trim(),
      top,
      bottom,
      onScreen: Boolean(box) && top >= 0 && top < window.innerHeight,
      scrollY: window.scrollY,
    };
  });
}

/**
 * Waits until the page stops scrolling (the site scrolls smoothly): the same scroll position three reads in a row,
 * 50 ms apart (no animation frames: they do not run in a page whose JavaScript is off).
 */
export async function scrollSettled(page: Page): Promise<void> {
  let last = -1;
  let same = 0;
  for (let i = 0; i < 200 && same < 3; i++) {
    const y = await page.evaluate(() => window.scrollY);
    same = y === last ? same + 1 : 0;
    last = y;
    await page.waitForTimeout(50);
  }
}
