import type { Server } from "node:http";
import type { Express } from "express";
import type { Db } from "../../src/db/knex.ts";
import { visitor } from "../support/http.ts";
import { DATA_TABLES, type Slots } from "./routes.ts";

export type Visitor = Awaited<ReturnType<typeof visitor>>;

/** A visitor with one cap in the cart (the line the cart routes of the table act on), and the table's other slots. */
export async function shopperWithOneLine(app: Express | Server): Promise<{ v: Visitor; lineId: string; slots: Slots }> {
  const v = await visitor(app as Express, "/about");
  const add = await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 });
  if (add.status !== 200) throw new Error(`could not fill the cart: ${add.status} ${add.text}`);
  const lineId = (add.body as { cartItems: { id: string }[] }).cartItems[0]!.id;
  const event = await v.get("/api/events/3");
  const coachDay = (event.body as { days?: { date: string }[] }).days?.[0]?.date;
  if (event.status !== 200 || !coachDay) throw new Error(`could not read event 3's days: ${event.status}`);
  return { v, lineId, slots: { line: lineId, coachDay } };
}

/** Row counts of every table a request could write to. */
export async function rowCounts(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of DATA_TABLES) {
    const row = (await db(table).count({ n: "*" }).first()) as { n: number | string } | undefined;
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

/** The cart as state: its lines' variants and quantities. */
export async function cartState(v: Visitor): Promise<string> {
  const res = await v.get("/api/cart");
  const cart = res.body as { cartItems: { id: string; shopifyVariantId: string; quantity: number; price: string }[] };
  return JSON.stringify(cart.cartItems.map((i) => [i.id, i.shopifyVariantId, i.quantity, i.price]));
}

/** Own properties of Object.prototype and friends: a polluted prototype gains some. */
export function prototypeSnapshot(): string {
  const names = (o: object) => Object.getOwnPropertyNames(o).sort().join(",");
  return [names(Object.prototype), names(Array.prototype), names(Function.prototype), String(Object.prototype.toString === Object.prototype.toString)].join("|");
}

/** A stack trace, an exception name or a file path of this machine in an answer. */
export const LEAK = /\bat [\w.<>]+ \(|\.tsx?:\d+|node_modules|(?:^|[^\w/.-])\/(?:home|work|tmp|root|usr|opt|var|srv|app|src)\/|TypeError|ReferenceError|SyntaxError: /;

/** A random public IPv4 address, for X-Forwarded-For. */
export function randomIp(): string {
  const b = () => 1 + Math.floor(Math.random() * 223);
  return `${b()}.${b()}.${b()}.${b()}`;
}
