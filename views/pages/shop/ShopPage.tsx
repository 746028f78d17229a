import type { Product } from "../../../src/shared/catalogue/types.ts";
import { ProductCard } from "./ProductCard.tsx";
import { IconPoints, QualityIcon, ReturnIcon, TruckIcon } from "./ShopIcons.tsx";
import type { ReactNode } from "react";

export interface ShopPageProps {
  brandName: string;
  products: Product[];
  /** The catalogue did not answer: the empty state says so. */
  unavailable: boolean;
  /** 'Ships starting June 25, 2027' for tees and caps while that day is ahead (shipsStartingNote), else null. */
  shipsLater: string | null;
  /** The panel of the order this visitor has just paid (after the spec's redirect to /shop?success=true), from orders/. */
  paymentConfirmation?: ReactNode;
}

const FEATURES = [
  { Icon: QualityIcon, title: "Premium Quality", text: "Heavyweight cotton and stitching built for the practice room." },
  { Icon: TruckIcon, title: "Fast Shipping", text: "Free shipping on orders over $75; most orders arrive in 2-3 business days." },
  { Icon: ReturnIcon, title: "Easy Returns", text: "30-day returns on unworn, unwashed items in their original packaging." },
];

export function ShopPage({ brandName, products, unavailable, shipsLater, paymentConfirmation }: ShopPageProps) {
  return (
    <>
      {paymentConfirmation}
      <section className="page-hero shop-hero">
        <div className="container">
          <p className="eyebrow">{brandName} Shop</p>
          <h1 className="display">Gear Built for the Grind</h1>
          <p className="lead">Heavyweight tees and caps made for wrestlers: worn in the room, at the tournament and everywhere after.</p>
        </div>
      </section>

      <section className="section" aria-labelledby="retail-heading">
        <div className="container">
          <div className="section-head">
            <h2 id="retail-heading">Retail Collection</h2>
          </div>
          {products.length > 0 ? (
            <ul className="grid grid-4 product-grid" role="list">
              {products.map((p, i) => (
                <li key={p.id}>
                  <ProductCard product={p} shipsLater={shipsLater} priority={i === 0} />
                </li>
              ))}
            </ul>
          ) : (
            <div className="shop-empty">
              <h3>No Products Available</h3>
              <p className="muted">
                {unavailable
                  ? "Our store is not answering right now. Please check back in a few minutes."
                  : "New gear is on the way. In the meantime, train with us this summer."}
              </p>
              <a className="btn btn-primary" href="/events">Explore Training Camps</a>
            </div>
          )}
        </div>
      </section>

      <section className="section section-alt" aria-label="Why shop with us">
        <div className="container">
          <IconPoints items={FEATURES} className="grid grid-3 feature-strip" itemClassName="feature" />
        </div>
      </section>

      <section className="section shop-cta">
        <div className="container">
          <h2>Train With the Best This Summer</h2>
          <p className="lead">Camps and clinics with national-level coaches for athletes 10 and up.</p>
          <p className="actions">
            <a className="btn btn-primary" href="/events">View Training Camps</a>
          </p>
        </div>
      </section>
    </>
  );
}
