/** /stripe-checkout's card form: the same payment panel as the registration's step 2. */
import { PaymentPanel, type PaymentPanelProps } from "./paymentPanel.tsx";

export default function CheckoutPayment(props: PaymentPanelProps) {
  return <PaymentPanel {...props} />;
}
