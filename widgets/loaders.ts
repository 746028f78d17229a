// The islands as the browser loads them (a chunk each): the generated loaders of widgets/islands, plus the card
// widgets that have not moved into the folder yet.
import { islandLoaders } from "./islandLoaders.gen.ts";

export const widgetLoaders: Record<string, () => Promise<{ default: unknown }>> = {
  ...islandLoaders,
  CardForm: () => import("./CardForm.tsx"),
  CheckoutPayment: () => import("./CheckoutPayment.tsx"),
};
