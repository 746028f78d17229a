import { use, type ComponentType } from "react";
import { renderToString } from "react-dom/server";
import { CsrfContext } from "../../components/Form.tsx";
import type { IslandComponents, IslandName, IslandProps } from "../../components/islands.ts";

/** Collects the widgets one page render places, so the page knows which scripts it needs. */
export class WidgetCollector {
  constructor(private readonly components: IslandComponents) {}
  private count = 0;
  readonly used = new Set<IslandName>();
  /** Widgets that start at page load: their chunks are preloaded. */
  readonly eager = new Set<IslandName>();
  nextId(name: IslandName, load: WidgetLoad): string {
    this.used.add(name);
    if (load === "eager") this.eager.add(name);
    this.count += 1;
    return `w${this.count}`;
  }
  component(name: IslandName): ComponentType<Record<string, unknown>> {
    return this.components[name] as ComponentType<Record<string, unknown>>;
  }
}

let current: WidgetCollector | null = null;

/** renderToString is synchronous, so one collector at a time is enough. */
export function collectWidgets<T>(collector: WidgetCollector, render: () => T): T {
  const previous = current;
  current = collector;
  try {
    return render();
  } finally {
    current = previous;
  }
}

/** JSON inside <script> must not close the tag nor break JavaScript line parsing. */
export function serializeProps(props: unknown): string {
  return JSON.stringify(props)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * A widget's server markup is a pure function of its name, id and props, and rendering it is most of the cost of a
 * page rendered for one visitor (the cart: 0.75 ms of its two widgets). The last renders are kept, with the
 * visitor's CSRF token (the one part of the props that differs between visitors with the same cart) taken out of
 * the key and the markup, so a reload, or another visitor with the same widget state, reuses the markup.
 */
const TOKEN_SLOT = "\u0000csrf\u0000";
const MAX_KEPT = 200;
const kept = new Map<string, string>();

function widgetMarkup(key: string, token: string, render: () => string): string {
  const hit = kept.get(key);
  if (hit !== undefined) {
    // Most recently used last, so the oldest is the first to go.
    kept.delete(key);
    kept.set(key, hit);
    return token ? hit.replaceAll(TOKEN_SLOT, token) : hit;
  }
  const html = render();
  kept.set(key, token ? html.replaceAll(token, TOKEN_SLOT) : html);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
  return html;
}

/** Forgets every kept markup (tests). */
export function forgetWidgetMarkup(): void {
  kept.clear();
}

/**
 * When a widget's code loads in the browser (widgets/boot.ts): at page load; when it is about to scroll into view
 * (below the fold); or at the first hover, focus or touch of `trigger` (a CSS selector; default: the widget itself).
 */
export type WidgetLoad = "eager" | "visible" | "interaction";

/**
 * Places a hydrated island: its own renderToString (with identifierPrefix = its id, as the browser's
 * hydrateRoot uses), followed by its props as inert JSON.
 */
export function Widget<N extends IslandName>({
  name,
  props,
  className,
  load = "eager",
  trigger,
}: {
  name: N;
  props: IslandProps<N>;
  className?: string;
  load?: WidgetLoad;
  trigger?: string;
}) {
  if (!current) throw new Error("Widget rendered outside renderPage");
  const id = current.nextId(name, load);
  const Component = current.component(name);
  const token = use(CsrfContext);
  const json = serializeProps(props);
  const key = `${name}#${id}#${token ? json.replaceAll(token, TOKEN_SLOT) : json}`;
  const html = widgetMarkup(key, token, () => renderToString(<Component {...(props as Record<string, unknown>)} />, { identifierPrefix: id }));
  return (
    <>
      <div data-widget={name} data-load={load === "eager" ? undefined : load} data-trigger={trigger} id={id} className={className} dangerouslySetInnerHTML={{ __html: html }} />
      <script type="application/json" id={`${id}-props`} dangerouslySetInnerHTML={{ __html: json }} />
    </>
  );
}
