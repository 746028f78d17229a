import type { Product } from "../../../src/shared/catalogue/types.ts";
import {
  AIR_DRY_NOTE,
  firstAvailableVariant,
  imageSrc,
  isCapLike,
  isEventProduct,
  isShirtLike,
  priceLabel,
  productPath,
  shortDescription,
} from "../../../src/shared/catalogue/rules.ts";
import { parsePriceCents } from "../../../src/shared/money.ts";
import { Form } from "../../../components/Form.tsx";
import { useImageUrl } from "../../layout/imageUrl.ts";

/**
 * A retail card: picture, title, short description, price, shipping notes and an add-to-cart form (quantity 1).
 * The first card of the page has `priority`: its picture is the page's largest, loaded at once; the others wait.
 */
export function ProductCard({ product, shipsLater, priority = false }: { product: Product; shipsLater: string | null; priority?: boolean }) {
  const imageUrl = useImageUrl();
  const href = productPath(product);
  const image = imageSrc(product.images[0]);
  const first = product.variants[0];
  const priceCents = first ? parsePriceCents(first.price) : 0;
  const addable = firstAvailableVariant(product);
  const headingId = `product-${product.id.replace(/[^a-zA-Z0-9_-]/g, "-")}`;

  let action;
  if (isEventProduct(product)) {
    action = <a className="btn btn-primary btn-block" href={href}>Register for Event</a>;
  } else if (priceCents === 0) {
    action = <a className="btn btn-secondary btn-block" href="/contact">Contact Us</a>;
  } else if (!addable) {
    action = <button type="button" className="btn btn-ghost btn-block" disabled>Sold Out</button>;
  } else {
    action = (
      <Form action="/cart/add" className="card-add" label={`Add ${product.title} to cart`}>
        <input type="hidden" name="productId" value={product.id} />
        <input type="hidden" name="variantId" value={addable.id} />
        <input type="hidden" name="quantity" value="1" />
        <button type="submit" className="btn btn-primary btn-block" aria-describedby={headingId}>Add to Cart</button>
      </Form>
    );
  }

  return (
    <article className="card product-card" aria-labelledby={headingId}>
      <a className="product-card-image" href={href} tabIndex={-1} aria-hidden="true">
        {image ? (
          <img src={imageUrl(image)} alt="" width={600} height={600} fetchPriority={priority ? "high" : undefined} loading={priority ? undefined : "lazy"} />
        ) : (
          <span className="image-placeholder" />
        )}
      </a>
      <div className="card-body product-card-body">
        <h3 className="product-card-title" id={headingId}>
          <a href={href}>{product.title}</a>
        </h3>
        <p className="product-card-description">{shortDescription(product.body_html)}</p>
        <p className="product-card-price price">{priceLabel(priceCents)}</p>
        {(shipsLater && (isShirtLike(product) || isCapLike(product))) || isShirtLike(product) ? (
          <ul className="product-card-notes">
            {shipsLater && (isShirtLike(product) || isCapLike(product)) ? <li>{shipsLater}</li> : null}
            {isShirtLike(product) ? <li>{AIR_DRY_NOTE}</li> : null}
          </ul>
        ) : null}
        <div className="product-card-action">{action}</div>
      </div>
    </article>
  );
}
