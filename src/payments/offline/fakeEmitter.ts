/** The events part of the fake Stripe.js's elements (on, off, once, emit), as Stripe's own elements have it. */
export type Handler = (event: unknown) => void;

export class FakeEmitter {
  protected handlers = new Map<string, Set<Handler>>();

  on(event: string, handler: Handler): this {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
    return this;
  }
  off(event: string, handler?: Handler): this {
    if (handler) this.handlers.get(event)?.delete(handler);
    else this.handlers.delete(event);
    return this;
  }
  once(event: string, handler: Handler): this {
    const wrapped: Handler = (e) => {
      this.off(event, wrapped);
      handler(e);
    };
    return this.on(event, wrapped);
  }
  protected emit(event: string, payload: unknown): void {
    for (const h of [...(this.handlers.get(event) ?? [])]) h(payload);
  }
}
