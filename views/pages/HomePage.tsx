import type { Site } from "../../src/site.ts";

export function HomePage({ site }: { site: Site }) {
  return (
    <section className="page-hero">
      <div className="container">
        <p className="eyebrow">{site.displayName}</p>
        <h1 className="display">Train hard. Wear it harder.</h1>
        <p className="lead">{site.tagline}</p>
        <p className="actions">
          <a className="btn btn-primary" href="/events">View Training Camps</a>
          <a className="btn btn-secondary" href="/shop">Shop Apparel</a>
        </p>
      </div>
    </section>
  );
}
