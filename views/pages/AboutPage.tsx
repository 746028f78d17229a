import type { Site } from "../../src/shared/site.ts";

export function AboutPage({ site }: { site: Site }) {
  return (
    <>
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">Our story</p>
          <h1 className="display">Built on the mat in Birmingham</h1>
          <p className="lead">{site.displayName} makes apparel for wrestlers who put in the work, and runs the camps where that work gets done.</p>
        </div>
      </section>
      <section className="section">
        <div className="container prose">
          <h2>Gear that holds up to practice</h2>
          <p>
            We started {site.brandName} because the shirts in our own wrestling room fell apart before the season did. Every piece
            we sell is cut heavier, stitched tighter and tested through two-a-days before it reaches the shop: heavyweight tees,
            caps, and custom team gear from singlets to warmups.
          </p>
          <h2>Camps run by people who coach</h2>
          <p>
            Each summer we bring athletes aged 10 through high school together with national-level coaches at the Birmingham Slam
            Camp, the National Champ Camp, the Texas Recruiting Clinic and the Panther Train Tour. Sessions stay capped at 200
            wrestlers so every athlete gets coached, not just counted.
          </p>
          <h2>Teams first</h2>
          <p>
            Coaches can register a whole roster under one payment at team pricing, and our custom apparel studio designs team
            packages from first sketch to delivery. Questions? Write to <a href={`mailto:${site.email}`}>{site.email}</a> or call{" "}
            <a href={site.phoneHref}>{site.phone}</a>.
          </p>
          <p className="actions">
            <a className="btn btn-primary" href="/events">See the camps</a>
            <a className="btn btn-secondary" href="/shop">Shop apparel</a>
          </p>
        </div>
      </section>
    </>
  );
}
