import type { Product, VariantImage } from "../../../src/shared/catalogue/types.ts";
import { Widget } from "../../components/Widget.tsx";
import type { IslandProps } from "../../../components/islands.ts";
import { useImageUrl } from "../../layout/imageUrl.ts";
import { CareIcon, IconPoints, QualityIcon, ReturnIcon, SupportIcon, TruckIcon } from "./ShopIcons.tsx";
import { shippingNote } from "../../../src/shared/catalogue/rules.ts";

function InfoGrid({ shipping }: { shipping: string }) {
  const items = [
    { Icon: QualityIcon, title: "Quality", text: "Premium materials, double-stitched seams and prints that last." },
    { Icon: TruckIcon, title: "Shipping", text: `${shipping}. Standard shipping 3-5 business days in the continental US.` },
    { Icon: CareIcon, title: "Care", text: "Machine wash cold inside out; hang or air dry." },
    { Icon: ReturnIcon, title: "Returns", text: "30-day policy on unworn, unwashed items in original packaging." },
    { Icon: SupportIcon, title: "Support", text: "24/7 customer care by e-mail, phone Monday to Friday." },
  ];
  return (
    <section className="section product-info-section" aria-labelledby="product-details-heading">
      <div className="container">
        <h2 id="product-details-heading" className="visually-hidden">Product details</h2>
        <IconPoints items={items} className="info-grid" />
      </div>
    </section>
  );
}

/** The product with its pictures at the URLs pages link: the picker widget renders apart from the page. */
function withImageUrls(product: Product, imageUrl: (path: string) => string): Product {
  const variantImage = <I extends VariantImage | null | undefined>(image: I): I => (image ? { ...image, src: imageUrl(image.src) } : image);
  return {
    ...product,
    images: product.images.map((image) => ({ ...image, src: imageUrl(image.src) })),
    variants: product.variants.map((v) => ({ ...v, image: variantImage(v.image), featured_image: variantImage(v.featured_image) })),
  };
}

export function ProductPage({ picker }: { picker: IslandProps<"ProductPicker"> }) {
  const product = withImageUrls(picker.product, useImageUrl());
  return (
    <>
      <div className="container product-page">
        <p className="back-link">
          <a href="/shop">← Back to Shop</a>
        </p>
        {/* Options and pictures are links and Add to Cart a form; the picker's code loads at the first hover, focus or touch. */}
        <Widget name="ProductPicker" load="interaction" props={{ ...picker, product }} />
      </div>
      <InfoGrid shipping={shippingNote(picker.product, picker.shipsLater)} />
    </>
  );
}

export function ProductNotFoundPage({ unavailable }: { unavailable: boolean }) {
  return (
    <section className="page-center">
      <h1 className="display">Product not found</h1>
      <p className="lead">
        {unavailable
          ? "Our store is not answering right now, so we could not load this product. Please try again in a few minutes."
          : "This product does not exist or is no longer available."}
      </p>
      <a className="btn btn-primary" href="/shop">Back to Shop</a>
    </section>
  );
}
