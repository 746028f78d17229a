import { createElement } from "react";
import { hydrateRoot } from "react-dom/client";
import { widgetLoaders, type WidgetName } from "./loaders.ts";

function readProps(id: string): Record<string, unknown> {
  const el = document.getElementById(`${id}-props`);
  return el?.textContent ? (JSON.parse(el.textContent) as Record<string, unknown>) : {};
}

async function hydrate(el: HTMLElement): Promise<void> {
  const name = el.dataset.widget as WidgetName;
  const load = widgetLoaders[name];
  if (!load) return;
  const { default: Component } = await load();
  hydrateRoot(el, createElement(Component as never, readProps(el.id) as never), { identifierPrefix: el.id });
  el.dataset.hydrated = "true";
}

for (const el of document.querySelectorAll<HTMLElement>("[data-widget]")) {
  hydrate(el).catch((err: unknown) => console.error(`widget ${el.dataset.widget} failed to start`, err));
}
