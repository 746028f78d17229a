import type { ComponentProps, ComponentType } from "react";
import type { WidgetName } from "./loaders.ts";
import ApparelSets from "./ApparelSets.tsx";
import CardForm from "./CardForm.tsx";
import CartStepper from "./CartStepper.tsx";
import CheckoutPayment from "./CheckoutPayment.tsx";
import CoachRequestDialog from "./CoachRequestDialog.tsx";
import ContactForm from "./ContactForm.tsx";
import NewsletterForm from "./NewsletterForm.tsx";
import PortfolioSets from "./PortfolioSets.tsx";
import ProductPicker from "./ProductPicker.tsx";
import QuoteForm from "./QuoteForm.tsx";
import RegistrationSteps from "./RegistrationSteps.tsx";
import SchoolPackages from "./SchoolPackages.tsx";
import TeamEventModal from "./TeamEventModal.tsx";
import TeamForm from "./TeamForm.tsx";
import TestCounter from "./TestCounter.tsx";

export type { WidgetName };

/**
 * Server side: every widget component, imported statically (renderToString is synchronous). Never a top-level
 * await over dynamic imports here: when a widget's imports lead back to the app, that await waits on itself and
 * importing the app never finishes. `satisfies` keeps this list and the browser's loaders.ts naming the same widgets.
 */
export const widgetComponents = {
  TestCounter,
  ProductPicker,
  TeamEventModal,
  NewsletterForm,
  ContactForm,
  QuoteForm,
  SchoolPackages,
  ApparelSets,
  PortfolioSets,
  CartStepper,
  CardForm,
  RegistrationSteps,
  CheckoutPayment,
  CoachRequestDialog,
  TeamForm,
} satisfies Record<WidgetName, ComponentType<never>>;

export type WidgetProps<N extends WidgetName> = ComponentProps<(typeof widgetComponents)[N]>;
