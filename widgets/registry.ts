import type { ComponentProps, ComponentType } from "react";
import { widgetLoaders, type WidgetName } from "./loaders.ts";

export type { WidgetName };
type Modules = { [N in WidgetName]: Awaited<ReturnType<(typeof widgetLoaders)[N]>> };
export type WidgetProps<N extends WidgetName> = ComponentProps<Modules[N]["default"]>;

/** Server side: every widget component, loaded once (renderToString is synchronous). */
export const widgetComponents = Object.fromEntries(
  await Promise.all(
    Object.entries(widgetLoaders).map(async ([name, load]) => [name, (await load()).default] as const),
  ),
) as { [N in WidgetName]: ComponentType<WidgetProps<N>> };
