/** The one toast mechanism in the browser: one toast at a time, in the top-right region of the layout. */
export type ToastVariant = "default" | "success" | "destructive";
export interface ToastMessage {
  title: string;
  description?: string;
  variant?: ToastVariant;
}

export const TOAST_LIMIT = 1;
/** A dismissed toast stays in the DOM (hidden) this long before it is removed, as the spec's constant says. */
export const TOAST_REMOVE_DELAY = 1_000_000;
const AUTO_DISMISS_MS = 6000;

/**
 * While a modal dialog is open the rest of the page is inert (hidden from screen readers, under the backdrop),
 * so a toast goes to the dialog's own region (`data-toast-region`) when it has one.
 */
function toastRegion(): HTMLElement | null {
  return document.querySelector<HTMLElement>("dialog[open] [data-toast-region]") ?? document.getElementById("toast-region");
}

export function showToast(message: ToastMessage): void {
  const region = toastRegion();
  if (!region) return;
  const toast = document.createElement("div");
  toast.className = `toast toast-${message.variant ?? "default"}`;
  toast.setAttribute("role", message.variant === "destructive" ? "alert" : "status");
  const title = document.createElement("p");
  title.className = "toast-title";
  title.textContent = message.title;
  toast.append(title);
  if (message.description) {
    const description = document.createElement("p");
    description.className = "toast-description";
    description.textContent = message.description;
    toast.append(description);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "toast-close";
  close.setAttribute("aria-label", "Dismiss notification");
  close.textContent = "×";
  close.addEventListener("click", () => dismiss(toast));
  toast.append(close);

  // The same message again (a second decline, a double click) replaces its earlier toast, shown or dismissed, so
  // the region never holds two of one message; another message dismisses the one shown (TOAST_LIMIT).
  for (const same of region.querySelectorAll<HTMLElement>(".toast")) if (sameMessage(same, message)) same.remove();
  const open = [...region.querySelectorAll<HTMLElement>(".toast:not([hidden])")];
  for (const old of open.slice(0, Math.max(0, open.length - TOAST_LIMIT + 1))) dismiss(old);
  region.append(toast);
  autoDismiss(toast);
}

/**
 * Hides the toast after AUTO_DISMISS_MS, but never while it has focus or the pointer is over it (WCAG 2.2.1): a toast
 * hidden under the keyboard's focus would drop focus to the page. Leaving it starts the time again.
 */
function autoDismiss(toast: HTMLElement): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pointerOver = false;
  const start = () => {
    if (timer === undefined && !pointerOver && !toast.contains(document.activeElement)) timer = setTimeout(() => dismiss(toast), AUTO_DISMISS_MS);
  };
  const pause = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  toast.addEventListener("focusin", pause);
  toast.addEventListener("focusout", (event) => {
    if (!toast.contains(event.relatedTarget as Node | null)) queueMicrotask(start);
  });
  toast.addEventListener("pointerenter", () => {
    pointerOver = true;
    pause();
  });
  toast.addEventListener("pointerleave", () => {
    pointerOver = false;
    start();
  });
  start();
}

function sameMessage(toast: HTMLElement, message: ToastMessage): boolean {
  const text = (selector: string) => toast.querySelector(selector)?.textContent ?? "";
  return text(".toast-title") === message.title && text(".toast-description") === (message.description ?? "");
}

function dismiss(toast: HTMLElement): void {
  if (toast.hidden) return;
  toast.hidden = true;
  setTimeout(() => toast.remove(), TOAST_REMOVE_DELAY);
}
