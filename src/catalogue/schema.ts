import * as z from "zod";
import { isPrice } from "../shared/money.ts";
import type { Product } from "../shared/catalogue/types.ts";

const price = z.string().refine((p) => isPrice(p), "must be a price such as 30.00");
const image = z.object({ src: z.string().min(1) });

const VariantSchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  price,
  compare_at_price: price.nullable(),
  option1: z.string().nullable(),
  option2: z.string().nullable(),
  option3: z.string().nullable(),
  image: image.nullable().optional(),
  featured_image: image.nullable().optional(),
  available: z.boolean().optional(),
  inventory_quantity: z.number().int().nullable().optional(),
});

/** The Product shape, checked when a catalogue file is loaded (a broken file fails at start, not on a page). */
export const ProductSchema = z.object({
  id: z.string().min(1),
  handle: z.string().min(1).nullable(),
  title: z.string().min(1),
  body_html: z.string(),
  product_type: z.string(),
  vendor: z.string(),
  tags: z.array(z.string()),
  images: z.array(
    z.object({
      src: z.string().min(1),
      url: z.string().optional(),
      originalSrc: z.string().optional(),
      alt: z.string().nullable().optional(),
      altText: z.string().nullable().optional(),
    }),
  ),
  options: z.array(z.object({ name: z.string().min(1), values: z.array(z.string()) })).max(3),
  variants: z.array(VariantSchema),
}) satisfies z.ZodType<Product>;

export const CatalogueFileSchema = z.object({ products: z.array(ProductSchema) });
