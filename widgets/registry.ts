import type { ComponentProps } from "react";
import { islandComponents } from "./islands.gen.ts";
import CardForm from "./CardForm.tsx";
import CheckoutPayment from "./CheckoutPayment.tsx";

/**
 * Server side: every island's component (generated from widgets/islands), plus the card widgets that have not
 * moved into the folder yet.
 */
export const widgetComponents = { ...islandComponents, CardForm, CheckoutPayment };

export type WidgetName = keyof typeof widgetComponents;
export type WidgetProps<N extends WidgetName> = ComponentProps<(typeof widgetComponents)[N]>;
