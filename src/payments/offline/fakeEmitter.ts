/** What every element of the fake Stripe.js shares: its events (on, off, once, emit) and its life (mount once, unmount, destroy). */
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

  protected root: HTMLElement | null = null;
  protected destroyed = false;

  /** The node a `mount` target names; a destroyed element or a target that is not there throws, as Stripe's does. */
  protected mountNode(target: HTMLElement | string): HTMLElement {
    if (this.destroyed) throw new Error("This Element has already been destroyed. Please create a new one.");
    const node = typeof target === "string" ? document.querySelector<HTMLElement>(target) : target;
    if (!node) throw new Error("The selector you specified does not apply to any DOM elements.");
    return node;
  }
  unmount(): void {
    this.root?.remove();
    this.root = null;
  }
  destroy(): void {
    this.unmount();
    this.destroyed = true;
    this.handlers.clear();
  }
  get alive(): boolean {
    return !this.destroyed;
  }
}
