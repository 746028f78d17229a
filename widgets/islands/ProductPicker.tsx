import { useId, useState, type FormEvent, type MouseEvent } from "react";
import { useHydrated } from "../useHydrated.ts";
import { CsrfContext, Form } from "../../components/Form.tsx";
import type { OptionSelection, Product, Variant } from "../../src/shared/catalogue/types.ts";
import {
  addedDescription,
  addToCartProblem,
  AIR_DRY_NOTE,
  buildCartItem,
  DISPLAY_RATING,
  fallbackSizes,
  FREE_SHIPPING_NOTE,
  imageAlt,
  imageSrc,
  isChoiceSoldOut,
  isEventProduct,
  isVariantAvailable,
  maxQuantity,
  priceLabel,
  resolveVariant,
  savingsCents,
  shippingNote,
  showsAirDryNote,
  variantImageIndex,
  variantPriceCents,
  variantSelection,
} from "../../src/shared/catalogue/rules.ts";
import { CART_MESSAGES } from "../../src/shared/cart/texts.ts";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { announceCartChange } from "../../src/shared/cart/badge.ts";
import { formatPrice } from "../../src/shared/money.ts";

export interface ProductPickerProps {
  /** The product, its description already made safe by the server. */
  product: Product;
  selection: OptionSelection;
  /** Gallery picture shown first (index into product.images). */
  imageIndex: number;
  /** The Size picker fallback's value (shirts without a size option). */
  fallbackSize: string | null;
  /** 'Ships starting June 25, 2027' while that day is ahead (shipsStartingNote), else null. */
  shipsLater: string | null;
  csrfToken: string;
}

const LOW_STOCK = 5;

/** Options worth a picker: Shopify's lone "Title / Default Title" option is not a choice. */
function choosableOptions(product: Product) {
  return product.options.filter((o) => !(o.values.length <= 1 && o.values[0] === "Default Title"));
}

/** The address of a choice, so every option, picture and size is a plain link without JavaScript. */
function choiceHref(selection: OptionSelection, fallbackSize: string | null, image: number | null): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(selection)) if (value !== "Default Title") params.set(name, value);
  if (fallbackSize) params.set("Size", fallbackSize);
  if (image !== null) params.set("image", String(image));
  const query = params.toString();
  return query ? `?${query}` : "?";
}

function stockText(variant: Variant | null): { text: string; tone: "in" | "low" | "out" } {
  if (!variant || !isVariantAvailable(variant)) return { text: "Out of Stock", tone: "out" };
  const qty = variant.inventory_quantity;
  if (typeof qty === "number" && qty <= LOW_STOCK) return { text: `Only ${qty} left in stock`, tone: "low" };
  return { text: "In Stock", tone: "in" };
}

/** Plain left click without modifier keys: the widget handles it; anything else follows the link. */
const isPlainClick = (e: MouseEvent) => e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

export default function ProductPicker({ product, selection: initial, imageIndex, fallbackSize: initialSize, shipsLater, csrfToken }: ProductPickerProps) {
  const [variant, setVariant] = useState<Variant | null>(() => resolveVariant(product, initial));
  const [image, setImage] = useState(imageIndex);
  const [size, setSize] = useState<string | null>(initialSize);
  const [quantity, setQuantity] = useState(1);
  const [busy, setBusy] = useState(false);
  // Steppers only work with JavaScript: rendered hidden on the server, shown once hydrated.
  const enhanced = useHydrated();
  const uid = useId();

  const selection = variant ? variantSelection(product, variant) : initial;
  const sizes = fallbackSizes(product);
  const options = choosableOptions(product);
  const event = isEventProduct(product);
  const priceCents = variant ? variantPriceCents(variant) : 0;
  const saving = variant ? savingsCents(variant) : 0;
  const stock = stockText(variant);
  const outOfStock = stock.tone === "out";
  const max = maxQuantity(variant);
  const shown = product.images[image] ?? product.images[0];

  function remember(next: OptionSelection, nextSize: string | null, nextImage: number | null) {
    window.history.replaceState(null, "", choiceHref(next, nextSize, nextImage));
  }

  function choose(e: MouseEvent, name: string, value: string) {
    if (!isPlainClick(e)) return;
    e.preventDefault();
    const next = resolveVariant(product, { ...selection, [name]: value });
    setVariant(next);
    const nextImage = variantImageIndex(product, next);
    if (nextImage !== null) setImage(nextImage);
    const limit = maxQuantity(next);
    if (limit !== undefined && limit > 0 && quantity > limit) setQuantity(limit);
    remember(next ? variantSelection(product, next) : selection, size, null);
  }

  function chooseSize(e: MouseEvent, value: string) {
    if (!isPlainClick(e)) return;
    e.preventDefault();
    setSize(value);
    remember(selection, value, null);
  }

  function chooseImage(e: MouseEvent, index: number) {
    if (!isPlainClick(e)) return;
    e.preventDefault();
    setImage(index);
  }

  function setQuantityFrom(text: string) {
    const n = Number.parseInt(text, 10);
    if (Number.isNaN(n)) return;
    setQuantity(Math.max(1, max !== undefined && max > 0 ? Math.min(n, max) : n));
  }

  async function addToCart(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const problem = addToCartProblem(product, variant);
    if (problem || !variant) {
      const message = CART_MESSAGES[problem ?? "noVariant"];
      showToast({ ...message, variant: "destructive" });
      return;
    }
    setBusy(true);
    try {
      const result = await apiFetch<{ itemCount: number }>("/api/cart/add", {
        method: "POST",
        json: buildCartItem(product, variant, quantity, sizes.length > 0 ? size : null),
      });
      showToast({ title: CART_MESSAGES.addedTitle, description: addedDescription(product, variant, quantity), variant: "success" });
      announceCartChange(result);
    } catch (err) {
      const description = (err instanceof ApiError ? err.serverMessage : undefined) ?? CART_MESSAGES.failed.description;
      showToast({ title: CART_MESSAGES.failed.title, description, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="product-view">
      <div className="product-gallery">
        <div className="gallery-main">
          {shown ? (
            <img src={imageSrc(shown)} alt={imageAlt(shown, product)} width={600} height={600} data-testid="gallery-main" />
          ) : (
            <div className="gallery-placeholder" role="img" aria-label={product.title} />
          )}
        </div>
        {product.images.length > 1 ? (
          <ul className="gallery-thumbs" aria-label="Product pictures">
            {product.images.map((img, i) => (
              <li key={imageSrc(img) ?? i}>
                <a href={choiceHref(selection, size, i)} aria-current={i === image ? "true" : undefined}
                  onClick={(e) => chooseImage(e, i)} aria-label={`Show picture ${i + 1}: ${imageAlt(img, product)}`}>
                  <img src={imageSrc(img)} alt="" width={96} height={96} loading="lazy" />
                </a>
              </li>
            ))}
          </ul>
        ) : null}
      </div>

      <div className="product-info">
        <h1 className="product-title">{product.title}</h1>
        <p className="product-rating">
          <span className="stars" aria-hidden="true">★★★★★</span>
          <span className="visually-hidden">Rated </span>
          <span>{DISPLAY_RATING.toFixed(1)}</span>
          <span className="visually-hidden"> out of 5</span>
        </p>
        <p className="product-price" data-testid="price">
          <span className="price">{priceLabel(priceCents)}</span>
          {saving > 0 && variant?.compare_at_price ? (
            <>
              {" "}
              <s className="price-old"><span className="visually-hidden">Was </span>{formatPrice(priceCents + saving)}</s>
              <span className="badge">Save {formatPrice(saving)}</span>
            </>
          ) : null}
        </p>
        {product.body_html ? <div className="product-description prose" dangerouslySetInnerHTML={{ __html: product.body_html }} /> : null}

        {event ? (
          <p className="actions">
            <a className="btn btn-primary btn-block" href={`/events/${encodeURIComponent(product.handle ?? product.id)}`}>
              {`Register for Event - ${formatPrice(priceCents)}`}
            </a>
          </p>
        ) : (
          <>
            {options.map((option) => (
              <fieldset className="option-picker" key={option.name}>
                <legend>
                  {`${option.name}: `}<span className="option-chosen">{selection[option.name] ?? ""}</span>
                </legend>
                <ul className="option-values">
                  {option.values.map((value) => {
                    const soldOut = isChoiceSoldOut(product, selection, option.name, value);
                    return (
                      <li key={value}>
                        <a className={soldOut ? "option-value option-value-soldout" : "option-value"}
                          href={choiceHref({ ...selection, [option.name]: value }, size, null)}
                          aria-current={selection[option.name] === value ? "true" : undefined}
                          onClick={(e) => choose(e, option.name, value)}>
                          {value}
                          {soldOut ? <span className="visually-hidden"> (sold out)</span> : null}
                        </a>
                      </li>
                    );
                  })}
                </ul>
              </fieldset>
            ))}
            {sizes.length > 0 ? (
              <fieldset className="option-picker">
                <legend>
                  Size: <span className="option-chosen">{size ?? "Choose a size"}</span>
                </legend>
                <ul className="option-values">
                  {sizes.map((value) => (
                    <li key={value}>
                      <a className="option-value" href={choiceHref(selection, value, null)}
                        aria-current={size === value ? "true" : undefined} onClick={(e) => chooseSize(e, value)}>
                        {value}
                      </a>
                    </li>
                  ))}
                </ul>
              </fieldset>
            ) : null}

            <p className={`stock stock-${stock.tone}`} role="status" data-testid="stock">{stock.text}</p>

            {priceCents === 0 && variant ? (
              <p className="actions">
                <a className="btn btn-primary btn-block" href="/contact">Contact Us for Pricing</a>
              </p>
            ) : (
              // The form posts without JavaScript; with it, the submit is taken over here (React's submit event bubbles).
              <div className="add-form-wrap" onSubmit={(e) => void addToCart(e)}>
              <CsrfContext value={csrfToken}>
                <Form action="/cart/add" className="add-form" label="Add to cart">
                  <input type="hidden" name="productId" value={product.id} />
                  <input type="hidden" name="variantId" value={variant?.id ?? ""} />
                  {sizes.length > 0 && size ? <input type="hidden" name="selectedSize" value={size} /> : null}
                  <div className="qty">
                    <label htmlFor={`${uid}-qty`}>Quantity</label>
                    <div className="qty-stepper">
                      <button type="button" className="btn btn-ghost btn-icon" hidden={!enhanced} aria-label="Decrease quantity"
                        disabled={quantity <= 1} onClick={() => setQuantity((q) => Math.max(1, q - 1))}>−</button>
                      <input id={`${uid}-qty`} name="quantity" type="number" inputMode="numeric" min={1}
                        max={max !== undefined && max > 0 ? max : undefined} value={quantity}
                        onChange={(e) => setQuantityFrom(e.target.value)} />
                      <button type="button" className="btn btn-ghost btn-icon" hidden={!enhanced} aria-label="Increase quantity"
                        disabled={outOfStock || (max !== undefined && quantity >= max)} onClick={() => setQuantity((q) => q + 1)}>+</button>
                    </div>
                    {max !== undefined && max > 0 && quantity >= max ? (
                      <p className="qty-limit" id={`${uid}-qty-limit`} role="status">
                        {max === 1 ? "Only 1 left in stock: you can add 1." : `Only ${max} left in stock: you can add up to ${max}.`}
                      </p>
                    ) : null}
                  </div>
                  {/* A sold-out variant keeps the button focusable (aria-disabled): pressing it says why, as the spec's toast does. */}
                  <button type="submit" className={outOfStock ? "btn btn-ghost btn-block btn-soldout" : "btn btn-primary btn-block"}
                    disabled={busy} aria-disabled={outOfStock ? "true" : undefined}>
                    {outOfStock ? "Sold Out" : busy ? "Adding..." : "Add to Cart"}
                  </button>
                </Form>
              </CsrfContext>
              </div>
            )}
          </>
        )}

        <ul className="product-notes">
          <li>{FREE_SHIPPING_NOTE}</li>
          <li>{`Shipping: ${shippingNote(product, shipsLater)}`}</li>
          {showsAirDryNote(product) ? <li>{AIR_DRY_NOTE}</li> : null}
        </ul>
      </div>
    </div>
  );
}
