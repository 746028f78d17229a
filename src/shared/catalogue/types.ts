/**
 * The catalogue's Product and Variant, in the spec's shape (Shopify's REST-like field names).
 * Both sources (bundled file, Shopify Storefront API) produce exactly this. Browser-safe.
 */
export interface ProductImage {
  src: string;
  url?: string;
  originalSrc?: string;
  alt?: string | null;
  altText?: string | null;
}

export interface ProductOption {
  name: string;
  values: string[];
}

export interface VariantImage {
  src: string;
}

export interface Variant {
  id: string;
  title: string;
  /** A decimal string, possibly with a leading "$" ("30.00", "$30.00"); read it with parsePriceCents. */
  price: string;
  compare_at_price: string | null;
  option1: string | null;
  option2: string | null;
  option3: string | null;
  image?: VariantImage | null;
  featured_image?: VariantImage | null;
  /** false means not for sale; absent means available. */
  available?: boolean;
  /** Absent (or null) when the store does not track stock for this variant. */
  inventory_quantity?: number | null;
}

export interface Product {
  id: string;
  /** null when the product has none; links then use the id. */
  handle: string | null;
  title: string;
  body_html: string;
  product_type: string;
  vendor: string;
  tags: string[];
  images: ProductImage[];
  options: ProductOption[];
  variants: Variant[];
}

/** Option name -> chosen value, e.g. { Size: "M", Color: "Black" }. */
export type OptionSelection = Record<string, string>;
