// The one list of widgets: boot.ts loads them lazily in the browser (a chunk each), the server loads them all at start.
export const widgetLoaders = {
  TestCounter: () => import("./TestCounter.tsx"),
  ProductPicker: () => import("./ProductPicker.tsx"),
};

export type WidgetName = keyof typeof widgetLoaders;
