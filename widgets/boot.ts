// The one script of pages with widgets. It holds no React itself: each widget loads its code (React among it)
// when it is needed: at once (`data-load="eager"`, the default), when it is about to scroll into view
// (`visible`), or at the first hover, focus or touch of its trigger (`interaction`, e.g. a modal's opening
// links; a click that comes first waits for the widget and is then replayed).
import { islandLoaders } from "./islandLoaders.gen.ts";

// The shared schemas use zod/mini, which never compiles parsers; classic zod compiles them with `new Function`
// unless told not to, and under our CSP (no unsafe-eval) even its probe is reported as a violation. zod keeps its
// configuration on this global (`z.config()` writes there too), so setting it before any widget loads keeps the
// JIT off should any zod code that has one reach the browser, without shipping zod's core in this script.
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };

// Notes meant for visitors without JavaScript (`.needs-js`) are hidden from here on (views/styles/site.css).
document.documentElement.classList.add("js");

function readProps(id: string): Record<string, unknown> {
  const el = document.getElementById(`${id}-props`);
  return el?.textContent ? (JSON.parse(el.textContent) as Record<string, unknown>) : {};
}

async function hydrate(el: HTMLElement): Promise<void> {
  const load = islandLoaders[el.dataset.widget as keyof typeof islandLoaders];
  if (!load) return;
  const [{ createElement, hydrateRoot, useEffect }, { default: Component }] = await Promise.all([import("./runtime.ts"), load()]);
  // Resolves once the widget's own effects (its event listeners) have run: children's effects run before their parent's.
  await new Promise<void>((resolve) => {
    function Ready({ children }: { children: ReturnType<typeof createElement> }) {
      useEffect(() => resolve(), []);
      return children;
    }
    hydrateRoot(el, createElement(Ready, null, createElement(Component as never, readProps(el.id) as never)), { identifierPrefix: el.id });
  });
  el.dataset.hydrated = "true";
}

const started = new WeakMap<HTMLElement, Promise<void>>();
function start(el: HTMLElement): Promise<void> {
  let running = started.get(el);
  if (!running) {
    running = hydrate(el);
    running.catch((err: unknown) => console.error(`widget ${el.dataset.widget} failed to start`, err));
    started.set(el, running);
  }
  return running;
}

const nearView = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      nearView.unobserve(entry.target);
      void start(entry.target as HTMLElement);
    }
  },
  { rootMargin: "300px 0px" },
);

function onInteraction(el: HTMLElement): void {
  const selector = el.dataset.trigger;
  const isTrigger = (target: EventTarget | null) => target instanceof Element && (selector ? target.closest(selector) : el.contains(target) ? el : null);
  const early = () => void start(el);
  for (const type of ["pointerover", "focusin", "touchstart"]) document.addEventListener(type, (e) => isTrigger(e.target) && early(), { passive: true });
  // A pointer already resting on the trigger, or a focus taken before this script ran, sends no event of its own.
  const hovered = document.querySelectorAll(":hover");
  if (isTrigger(document.activeElement) || isTrigger(hovered[hovered.length - 1] ?? null)) early();
  document.addEventListener(
    "click",
    (e) => {
      const target = e.target;
      if (!(target instanceof HTMLElement) || el.dataset.hydrated || !isTrigger(target)) return;
      // A click inside another widget is that widget's to replay (two widgets may share a trigger area).
      const owner = target.closest("[data-widget]");
      if (owner && owner !== el) return;
      e.preventDefault();
      // Replayed on what was clicked (a button, a box, a link), once the widget listens.
      void start(el).then(() => target.click());
    },
    true,
  );
}

for (const el of document.querySelectorAll<HTMLElement>("[data-widget]")) {
  const mode = el.dataset.load ?? "eager";
  if (mode === "visible") nearView.observe(el);
  else if (mode === "interaction") onInteraction(el);
  else void start(el);
}
