import type { ComponentType } from "react";
import { renderToString } from "react-dom/server";
import { widgetComponents, type WidgetName, type WidgetProps } from "../../widgets/registry.ts";

/** Collects the widgets one page render places, so the page knows which scripts it needs. */
export class WidgetCollector {
  private count = 0;
  readonly used = new Set<WidgetName>();
  nextId(name: WidgetName): string {
    this.used.add(name);
    this.count += 1;
    return `w${this.count}`;
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
 * Places a hydrated island: its own renderToString (with identifierPrefix = its id, as the browser's
 * hydrateRoot uses), followed by its props as inert JSON.
 */
export function Widget<N extends WidgetName>({ name, props, className }: { name: N; props: WidgetProps<N>; className?: string }) {
  if (!current) throw new Error("Widget rendered outside renderPage");
  const id = current.nextId(name);
  const Component = widgetComponents[name] as ComponentType<Record<string, unknown>>;
  const html = renderToString(<Component {...(props as Record<string, unknown>)} />, { identifierPrefix: id });
  return (
    <>
      <div data-widget={name} id={id} className={className} dangerouslySetInnerHTML={{ __html: html }} />
      <script type="application/json" id={`${id}-props`} dangerouslySetInnerHTML={{ __html: serializeProps(props) }} />
    </>
  );
}
