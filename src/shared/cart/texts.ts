/** Every message of the cart, from adding a product to paying: shared by the routes and the widgets. Browser-safe. */

/** The spec's toasts for adding to the cart, word for word. */
export const CART_MESSAGES = {
  notAllowed: { title: "Cannot Add to Cart", description: "This item cannot be added to cart" },
  noVariant: { title: "Selection Required", description: "Please select all required options" },
  outOfStock: { title: "Out of Stock", description: "This variant is currently out of stock" },
  noVariants: { title: "Error", description: "Product has no available variants" },
  failed: { title: "Error", description: "Failed to add item to cart" },
  addedTitle: "Added to Cart",
} as const;

/** The spec's cart, payment and checkout messages, word for word. */
export const CART_TEXT = {
  emptyTitle: "Your cart is empty",
  emptyBody: "Add some items to get started!",
  shippingNote: "Calculated at checkout",
  updateFailed: { title: "Error", description: "Failed to update quantity" },
  removeFailed: { title: "Error", description: "Failed to remove item" },
  removed: { title: "Item Removed", description: "Item has been removed from your cart" },
  addFailed: "Failed to add item to cart",
  checkoutFailed: "Failed to create checkout",
  missingInfo: { title: "Missing Information", description: "Please fill in all required fields." },
  providerNotReady: { title: "Payment System Unavailable", description: "Payment processing is temporarily unavailable. Please try again later." },
  providerCannotLoad: { title: "Payment processing is temporarily unavailable", description: "Please try again later or contact support" },
  paymentFailedTitle: "Payment Failed",
  paymentFailedFallbacks: {
    intent: "Failed to create payment intent",
    cardElement: "Card element not found",
    payment: "Payment failed",
    unexpected: "An unexpected error occurred",
  },
  paymentSucceeded: { title: "Payment Successful!", description: "Your order has been placed successfully. You'll receive a confirmation email shortly." },
  processing: "Processing Payment...",
  needsJavaScript: "Card payment needs JavaScript. Please turn JavaScript on in your browser to pay by card; your cart is saved.",
} as const;

/** Our own messages where the spec gives none. */
export const CART_ERRORS = {
  productGone: "This product is no longer available",
  priceOnRequest: "This item is priced on request. Please contact us to order it.",
  invalidSize: "Please choose one of the listed sizes",
  itemGone: "That item is no longer in your cart",
  notEnoughStock: (n: number) => (n === 1 ? "Only 1 left in stock" : `Only ${n} left in stock`),
  invalidEmail: "Please enter a valid email address",
  catalogueDown: "Our product catalog is temporarily unavailable. Please try again in a few minutes.",
} as const;
