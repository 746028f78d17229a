// The one list of widgets: boot.ts loads them lazily in the browser (a chunk each), the server loads them all at start.
export const widgetLoaders = {
  TestCounter: () => import("./TestCounter.tsx"),
  ProductPicker: () => import("./ProductPicker.tsx"),
  TeamEventModal: () => import("./TeamEventModal.tsx"),
  NewsletterForm: () => import("./NewsletterForm.tsx"),
  ContactForm: () => import("./ContactForm.tsx"),
  QuoteForm: () => import("./QuoteForm.tsx"),
  SchoolPackages: () => import("./SchoolPackages.tsx"),
  ApparelSets: () => import("./ApparelSets.tsx"),
  PortfolioSets: () => import("./PortfolioSets.tsx"),
  CartStepper: () => import("./CartStepper.tsx"),
  CardForm: () => import("./CardForm.tsx"),
};

export type WidgetName = keyof typeof widgetLoaders;
