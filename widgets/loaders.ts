// The widgets as the browser loads them: boot.ts imports each placed widget lazily (a chunk each). The server
// imports the same widgets statically in registry.ts; the type check keeps both lists naming the same widgets.
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
  RegistrationSteps: () => import("./RegistrationSteps.tsx"),
  CheckoutPayment: () => import("./CheckoutPayment.tsx"),
  CoachRequestDialog: () => import("./CoachRequestDialog.tsx"),
  TeamForm: () => import("./TeamForm.tsx"),
};

export type WidgetName = keyof typeof widgetLoaders;
